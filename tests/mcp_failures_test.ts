/**
 * Failed runs as a tool and REST report them (docs/mcp.md#tool-answers): failing SQL on every
 * dialect a pipeline reads — PostgreSQL, MariaDB, SQLite, DuckDB and the staging database — run
 * through `pipelines_execute` and read back with `executions_get` and `GET /executions/{id}`. The
 * record leads with `code` and `message`; the exception's frames appear only under the default
 * `full` detail setting and never under `structured`; and no part of it, under either, carries the
 * value bound to the statement (PostgreSQL and DuckDB quote it in their messages) or the
 * datasource's password.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import postgres from "postgres";
import { adminScope, seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { freshMariaDatabase, mariaAdmin, pgJdbcUrl } from "./support/datasources.ts";
import { startTestServer } from "./support/harness.ts";
import { connect, type Json, keyHeaders } from "./support/mcp_client.ts";
import { skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";

/** What must never be shown: the bound value and the password. */
const VALUE = "bound-value-7f3a9c";
const PASSWORD = "pw-never-shown-41be";

/** Per dialect: the datasource and a statement that fails on the bound value. */
const FAILING: Record<string, string> = {
  pg: "SELECT CAST(:v AS INTEGER) AS n",
  maria: "SELECT n FROM nums WHERE n = :v AND no_such_column = 1",
  lite: "SELECT n FROM nums WHERE n = :v AND no_such_column = 1",
  duck: "SELECT CAST(:v AS INTEGER) AS n",
  tempdb: "SELECT CAST(:v AS INTEGER) AS n",
};

for (const detail of ["full", "structured"] as const) {
  Deno.test({
    name:
      `[${detail}] failing SQL on every dialect: frames only under full, never a value or secret`,
    ignore: skipUnless("postgres", "mariadb"),
    fn: async () => {
      const pg = await freshPostgresDatabase();
      const maria = await freshMariaDatabase();
      const dir = await Deno.makeTempDir({ prefix: "svc_fail_" });
      const s = await startTestServer({ env: { SERVICE_EXECUTOR_ERROR_DETAIL: detail } });
      try {
        const lite = new DatabaseSync(`${dir}/lite.db`);
        lite.exec("CREATE TABLE nums (n INTEGER); INSERT INTO nums VALUES (1);");
        lite.close();
        const duck = await DuckDBInstance.create(`${dir}/duck.duckdb`);
        const conn = await duck.connect();
        await conn.run("CREATE TABLE nums AS SELECT 1 AS n");
        conn.closeSync();
        duck.closeSync();
        const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
        await sql.unsafe("CREATE TABLE nums (n integer)");
        await sql.end();
        const m = await mariaAdmin(maria.name);
        await m.query("CREATE TABLE nums (n INTEGER)");
        await m.end();

        const f = await seedRoles(s.runtime);
        const admin = f.users.ws_admin.principal;
        const scope = adminScope(f);
        const ds = s.runtime.datasources;
        await ds.create(admin, scope, {
          name: "pg",
          dialect: "POSTGRES",
          jdbc_url: pgJdbcUrl(pg.url),
          credential: { kind: "password", username: "postgres", secret: PASSWORD },
        });
        await ds.create(admin, scope, {
          name: "maria",
          dialect: "MYSQL",
          jdbc_url: maria.url,
          credential: { kind: "none", username: "root" },
        });
        await ds.create(admin, scope, {
          name: "lite",
          dialect: "SQLITE",
          jdbc_url: `jdbc:sqlite:${dir}/lite.db`,
        });
        await ds.create(admin, scope, {
          name: "duck",
          dialect: "DUCKDB",
          jdbc_url: `jdbc:duckdb:${dir}/duck.duckdb`,
        });
        const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
        const c = await connect(s, "2026-07-28", keyHeaders(key));
        const session = await sessionHeaders(s.runtime, f.users.author, f.workspace.name);
        try {
          for (const [source, statement] of Object.entries(FAILING)) {
            const p = await c.call("pipelines_create", {
              name: `fail/${source}`,
              parameters: { v: { type: "string", required: true } },
              nodes: [{ id: "read", type: "DQL", source, sql: statement }],
            });
            const run = await c.call("pipelines_execute", { id: p.id, parameters: { v: VALUE } });
            equal(run.execution.status, "FAILED", `${source}: ${JSON.stringify(run.execution)}`);
            const error = run.execution.error as Json;
            deepEqual(Object.keys(error).slice(0, 2), ["code", "message"], source);
            const viaTool = await c.call("executions_get", {
              execution_id: run.execution.execution_id,
            });
            const rest = await s.fetch(`/api/v1/executions/${run.execution.execution_id}`, {
              headers: session,
            });
            const viaRest = (await rest.json()).data;
            for (const record of [run.execution, viaTool, viaRest]) {
              // The record lists the parameters as sent, by design; its failure shows none.
              deepEqual(record.parameters, { v: VALUE });
              ok(!JSON.stringify(record).includes(PASSWORD), `${source}: the password leaked`);
              const text = JSON.stringify(record.error);
              ok(!text.includes(VALUE), `${source}: the bound value leaked: ${text}`);
              const frames = record.error.exception?.frames ?? [];
              if (detail === "full") ok(record.error.exception, `${source}: full has the chain`);
              else {
                deepEqual(
                  [record.error.node, record.error.sql, record.error.exception],
                  [undefined, undefined, undefined],
                  source,
                );
                equal(frames.length, 0);
              }
            }
          }
        } finally {
          await c.close();
        }
      } finally {
        await s.close();
        await pg.drop();
        await maria.drop();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
