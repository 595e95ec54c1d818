/**
 * Set-up of the hostile-SQL tests on SQLite: a server on a fresh store, the seeded roles of `acme`,
 * a writable (`wh`) and a read-only (`ro`) SQLite datasource over their own files, and pipelines
 * created and executed as the workspace's author, as a hostile author would.
 */
import { equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { checkEventOrder } from "../../src/executions/event_order.ts";
import { type AccessFixture, seedRoles, sessionHeaders } from "./access_fixtures.ts";
import { frames } from "./executions_fixtures.ts";
import { call, startTestServer, type TestServer } from "./harness.ts";
import type { StoreKind } from "./stores.ts";
import { pipelineDrafts } from "./pipeline_body.ts";
import { executeOverHttp } from "./runs.ts";

export interface HostileWorld {
  s: TestServer;
  f: AccessFixture;
  author: Record<string, string>;
  /** Where escapes aim their files; must stay empty. */
  escapeDir: string;
  /** The metadata store's database file (on a PostgreSQL store: where one would be). */
  serviceDb: string;
  files: { wh: string; ro: string };
  /** Creates a pipeline as the author; returns its id. */
  create(nodes: unknown[], extra?: Record<string, unknown>): Promise<string>;
  /** Starts an execution as the author and returns its stream. */
  start(pipelineId: string): Promise<Response>;
  /** Runs a pipeline to its end: the failure's code and reason, or the delivered rows. */
  run(nodes: unknown[], extra?: Record<string, unknown>): Promise<Outcome>;
}

export interface Outcome {
  code?: string;
  reason?: string;
  rows?: unknown[][];
}

export function ordersFile(path: string): void {
  const db = new DatabaseSync(path);
  db.exec(`CREATE TABLE orders (id INTEGER, amount INTEGER);
    INSERT INTO orders VALUES (1, 10), (2, 32);`);
  db.close();
}

/** What a file holds that an escape could change: rows, schema, header fields, journal mode. */
export function fileState(path: string): unknown {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return {
      orders: db.prepare("SELECT * FROM orders ORDER BY id").all(),
      schema: db.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all(),
      user_version: db.prepare("PRAGMA user_version").get(),
      journal_mode: db.prepare("PRAGMA journal_mode").get(),
    };
  } finally {
    db.close();
  }
}

export async function withHostileWorld(
  store: StoreKind,
  fn: (w: HostileWorld) => Promise<void>,
  options: { env?: Record<string, string>; poolSize?: number } = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_hostile_" });
  const escapeDir = `${dir}/escapes`;
  await Deno.mkdir(escapeDir);
  const s = await startTestServer({ store, env: options.env });
  try {
    const f = await seedRoles(s.runtime);
    const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
    const files = { wh: `${dir}/wh.db`, ro: `${dir}/ro.db` };
    for (const [name, path] of Object.entries(files)) {
      ordersFile(path);
      const made = await call(s, "POST", "/api/v1/datasources", admin, {
        name,
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${path}`,
        readonly: name === "ro",
        properties: { hikari: { maximumPoolSize: options.poolSize ?? 5 } },
      });
      equal(made.status, 201, JSON.stringify(made.body));
    }
    const serviceDb = s.runtime.config.store.kind === "sqlite"
      ? s.runtime.config.store.url.replace(/^sqlite:/, "")
      : `${s.runtime.config.dataDir}/service.db`;
    const author = await sessionHeaders(s.runtime, f.users.author, "acme");
    const drafts = pipelineDrafts(s.runtime.db, f.users.author, f.workspace.id);
    let n = 0;
    const create = (nodes: unknown[], extra: Record<string, unknown> = {}) =>
      drafts(`hostile/p${++n}`, nodes, extra);
    const start = (id: string) => executeOverHttp(s, author, id);
    const run = async (nodes: unknown[], extra: Record<string, unknown> = {}) => {
      const res = await start(await create(nodes, extra));
      equal(res.status, 200, await res.clone().text());
      const byType = checkEventOrder(await frames(res).rest(), { expectDataReady: undefined });
      const failed = byType.get("pipeline_failed")?.[0];
      if (failed) {
        const error = failed.data.error as { code: string; details?: { reason?: string } };
        return { code: error.code, reason: error.details?.reason };
      }
      return { rows: byType.get("data_ready")?.[0].data.rows as unknown[][] };
    };
    await fn({ s, f, author, escapeDir, serviceDb, files, create, start, run });
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}
