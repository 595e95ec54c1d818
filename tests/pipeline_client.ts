/** Helpers of the pipeline route tests: both stores, small bodies, a real SQLite datasource file. */
import { DatabaseSync } from "node:sqlite";
import { skipUnless } from "./services.ts";
import { STORE_KINDS, type StoreKind } from "./stores.ts";
import { withWorld as withWorldOn } from "./template_client.ts";

/** Every test here runs on both stores: `[sqlite] …` and `[postgres] …`. */
export function bothStores(name: string, fn: (withWorld: typeof withWorldOn) => Promise<void>) {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `[${kind}] ${name}`,
      ignore: kind === "postgres" && skipUnless("postgres"),
      fn: () => fn((body) => withWorldOn(body, kind as StoreKind)),
    });
  }
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

export async function sqliteFile(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "svc_chk_" })}/warehouse.db`;
  const db = new DatabaseSync(path);
  db.exec(
    "CREATE TABLE orders (id INTEGER, amount INTEGER); INSERT INTO orders VALUES (1, 10), (2, 32);",
  );
  db.close();
  return path;
}
