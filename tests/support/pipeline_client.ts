/** Helpers of the pipeline route tests: both stores, small bodies, a real SQLite datasource file. */
import { DatabaseSync } from "node:sqlite";
import { forEachStoreKind } from "./stores.ts";
import { withWorld as withWorldOn } from "./template_client.ts";

/**
 * Every test here runs on both stores: `[sqlite] …` and `[postgres] …`; `withWorld` starts the app
 * on that store (more than once when a test needs a fresh instance).
 */
export function bothStores(name: string, fn: (withWorld: typeof withWorldOn) => Promise<void>) {
  forEachStoreKind(name, (kind) => fn((body) => withWorldOn(body, kind)));
}

export const P = "/api/v1/pipelines";
export const dql = (extra: Record<string, unknown> = {}) => ({
  id: "a",
  type: "DQL",
  source: "tempdb",
  sql: "SELECT 1 AS x",
  ...extra,
});
export const pipe = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  nodes: [dql()],
  ...extra,
});

/** The create body of a SQLite datasource `name` over `file`, bound to workspace `acme`. */
export function sqliteSource(name: string, file: string, more: Record<string, unknown> = {}) {
  return {
    name,
    display_name: name,
    dialect: "SQLITE",
    jdbc_url: `jdbc:sqlite:${file}`,
    credential: { kind: "none" },
    workspace: "acme",
    ...more,
  };
}

/** A release check `id` running `query` on the datasource `wh`. */
export const whCheck = (id: string, name: string, query: string, expectation: object) => ({
  id,
  name,
  datasource: "wh",
  query,
  expectation,
});

/** Release checks on `wh` over sqliteFile()'s orders: the total (42) passes, the count (2) fails. */
export const ORDER_CHECKS = [
  whCheck("total", "Total", "SELECT SUM(amount) FROM orders", { kind: "value", value: 42 }),
  whCheck("count", "Count", "SELECT COUNT(*) FROM orders", { kind: "range", min: 5 }),
];

export async function sqliteFile(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "svc_chk_" })}/warehouse.db`;
  const db = new DatabaseSync(path);
  db.exec(
    "CREATE TABLE orders (id INTEGER, amount INTEGER); INSERT INTO orders VALUES (1, 10), (2, 32);",
  );
  db.close();
  return path;
}
