/**
 * The answers of `GET /api/x/**` over HTTP that tests/endpoints_http_test.ts does not reach, on
 * both stores: 202 on timeout with the run left going (then its record and result), 429 with
 * `Retry-After` for the owner's concurrency limit and for the owner's request budget (every key
 * of one user draws from it), 500, 502 and 503, `Server-Timing` on every served answer, a
 * deactivated workspace's 404 matching an unknown path's, and `/api/x/openapi.json` reserved.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import postgres from "postgres";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, type Json, startTestServer, type TestServer } from "./support/harness.ts";
import type { JsonObject, JsonValue } from "../src/versions/types.ts";
import { forEachStoreKind, freshPostgresDatabase } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";
import { releasedPipeline } from "./support/pipeline_body.ts";

type Fixture = Awaited<ReturnType<typeof seedRoles>>;

/** Creates and releases a pipeline through the lifecycle; answers its id. */
async function released(
  s: TestServer,
  f: Fixture,
  name: string,
  nodes: JsonValue[],
  parameters: JsonObject = {},
): Promise<string> {
  const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
  return await releasedPipeline(s.runtime, ctx, name, { parameters, nodes });
}

function timed(res: Response): void {
  match(res.headers.get("server-timing") ?? "", /queue;dur=.*execute;dur=.*serialise;dur=/);
}

forEachStoreKind(
  "serving over HTTP: 202 then the result, 429, 500, 502, 503, one 404, a reserved path",
  async (store) => {
    const pg = await freshPostgresDatabase();
    const lockHolder = postgres(pg.url, { max: 1, onnotice: () => {} });
    const s = await startTestServer({
      store,
      env: { SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "1" },
    });
    try {
      const f = await seedRoles(s.runtime);
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, f.workspace.name);
      const author = await sessionHeaders(s.runtime, f.users.author);
      const source = async (name: string, dialect: string, jdbc_url: string) => {
        const made = await call(s, "POST", "/api/v1/datasources", admin, {
          name,
          dialect,
          jdbc_url,
          readonly: true,
          ...(dialect === "POSTGRES" ? { username: "postgres", password: "trust-auth" } : {}),
        });
        equal(made.status, 201, JSON.stringify(made.body));
      };
      await source(
        "slowpg",
        "POSTGRES",
        `jdbc:postgresql://127.0.0.1:5432${new URL(pg.url).pathname}`,
      );
      await source("gone", "SQLITE", "jdbc:sqlite:/nonexistent-dir/none.db");
      const lock = Math.floor(Math.random() * 1_000_000);
      const ids = {
        slow: await released(s, f, "api/slow", [{
          id: "r",
          type: "DQL",
          source: "slowpg",
          sql: `SELECT 42 AS answer FROM (SELECT pg_advisory_xact_lock(${lock})) AS gate`,
        }]),
        gone: await released(s, f, "api/gone", [{
          id: "r",
          type: "DQL",
          source: "gone",
          sql: "SELECT 1",
        }]),
        broken: await released(s, f, "api/broken", [
          { id: "r", type: "DQL", source: "tempdb", sql: "SELECT * FROM no_such_table" },
        ]),
        ok: await released(s, f, "api/ok", [
          { id: "r", type: "DQL", source: "tempdb", sql: "SELECT 1 AS one" },
        ]),
        echo: await released(s, f, "api/echo", [
          { id: "r", type: "DQL", source: "tempdb", sql: "SELECT :x AS x" },
        ], { x: { type: "string", required: true } }),
      };
      const publish = (path_pattern: string, pipeline_id: string, extra = {}) =>
        call(s, "POST", "/api/v1/endpoints", author, { path_pattern, pipeline_id, ...extra });
      for (const [name, id] of Object.entries(ids)) {
        if (name === "echo") continue;
        const extra = name === "slow" ? { timeout_seconds: 1 } : {};
        equal((await publish(`/t/${name}`, id, extra)).status, 201);
      }
      const key = {
        "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, [
          "execute",
          "read",
        ]),
      };

      const okRes = await s.fetch("/api/x/t/ok", { headers: key });
      equal(okRes.status, 200);
      timed(okRes);
      await okRes.body?.cancel();

      // 502: the datasource cannot be reached; 500: any other failure. Both carry the run's id.
      for (const [path, status] of [["/api/x/t/gone", 502], ["/api/x/t/broken", 500]] as const) {
        const res = await s.fetch(path, { headers: key });
        equal(res.status, status);
        timed(res);
        const body = await res.json();
        ok(res.headers.get("svc-execution-id"));
        if (status === 502) equal(body.error.code, "pipeline.node.datasource_connection_failed");
        else match(body.error.code, /^pipeline\./);
      }

      // Past the 1 s timeout: 202, the run goes on, and still holds the owner's only slot.
      await lockHolder`SELECT pg_advisory_lock(${lock})`;
      const slow = await s.fetch("/api/x/t/slow", { headers: key });
      equal(slow.status, 202);
      timed(slow);
      const accepted = await slow.json();
      equal(slow.headers.get("svc-execution-id"), accepted.execution_id);
      deepEqual(Object.keys(accepted).sort(), [
        "execution_id",
        "expires_at",
        "result_url",
        "status_url",
      ]);
      const status = await call(s, "GET", accepted.status_url, key);
      equal(status.body.data.status, "RUNNING");
      const limited = await s.fetch("/api/x/t/ok", { headers: key });
      equal(limited.status, 429);
      ok(Number(limited.headers.get("retry-after")) > 0);
      equal((await limited.json()).error.code, "pipeline.execution.concurrency_limit");
      await lockHolder`SELECT pg_advisory_unlock(${lock})`;
      await eventually(
        async () => (await call(s, "GET", accepted.status_url, key)).body.data.status === "SUCCESS",
        10_000,
      );
      const result = await call(s, "GET", accepted.result_url, key);
      deepEqual(result.body.data.rows, [[42]]);

      // 503: the pipeline behind a live URL has no released version any more.
      await s.runtime.pipelines.lifecycle.discard(
        { actor: f.users.author.principal, workspaceId: f.workspace.id },
        ids.ok,
        1,
      );
      const gone = await s.fetch("/api/x/t/ok", { headers: key });
      equal(gone.status, 503);
      ok(gone.headers.get("retry-after"));
      equal((await gone.json()).error.code, "endpoint.unavailable");

      // /api/x/openapi.json stays the document: the literal pattern is refused, and `/{x}`
      // serves every other one-segment path.
      const reserved = await publish("/openapi.json", ids.ok);
      deepEqual([reserved.status, reserved.body.error.code], [
        400,
        "endpoint.validation.path_invalid",
      ]);
      equal((await publish("/{x}", ids.echo)).status, 201);
      const doc = await call(s, "GET", "/api/x/openapi.json", key);
      equal(doc.status, 200);
      match(doc.body.openapi, /^3\.1/);
      ok(Object.keys(doc.body.paths).includes("/{x}"));
      const echoed = await s.fetch("/api/x/hello", { headers: key });
      equal(echoed.status, 200);
      deepEqual((await echoed.json()).rows, [["hello"]]);

      // A deactivated workspace's endpoint answers exactly like a path nobody published.
      const unknown = await call(s, "GET", "/api/x/no/such/path", key);
      equal(unknown.status, 404);
      // As a replica other than the one deactivating sees it: its access cache still holds the
      // key's workspace as active (within the TTL), and the announcement on the endpoints channel
      // moves its serving to a new verdict.
      await s.runtime.db.execute("UPDATE workspaces SET deactivated_at = $2 WHERE id = $1", [
        f.workspace.id,
        new Date().toISOString(),
      ]);
      await s.runtime.liveEndpoints.changed();
      const hidden = await call(s, "GET", "/api/x/hello", key);
      equal(hidden.status, 404);
      // The same answer but for the path it names (and the request's own correlation id).
      const comparable = (b: Json) => ({
        ...b.error,
        correlation_id: undefined,
        message: b.error.message.replace(b.error.details.path, "<path>"),
        details: { ...b.error.details, path: undefined },
      });
      deepEqual(comparable(hidden.body), comparable(unknown.body));
      equal(hidden.body.error.details.path, "/hello");
    } finally {
      await s.close();
      await lockHolder.end();
      await pg.drop();
    }
  },
);

forEachStoreKind(
  "429 with Retry-After when the key's owner spent the request budget, whichever key",
  async (store) => {
    const s = await startTestServer({
      store,
      env: { SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "3" },
    });
    try {
      const f = await seedRoles(s.runtime);
      const author = await sessionHeaders(s.runtime, f.users.author);
      const pipelineId = await released(s, f, "api/one", [
        { id: "r", type: "DQL", source: "tempdb", sql: "SELECT 1 AS one" },
      ]);
      // The budget counts in wall-clock minutes: the requests it counts below must not straddle
      // a minute's edge, or the 429s come out 200s. Start them well inside a minute.
      const left = 60_000 - Date.now() % 60_000;
      if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
      equal(
        (await call(s, "POST", "/api/v1/endpoints", author, {
          path_pattern: "/one",
          pipeline_id: pipelineId,
        })).status,
        201,
      );
      const keyOf = async (user: "author" | "ws_admin") => ({
        "SVC-API-Key": await userKey(s.runtime, f.users[user], f.workspace.id, ["execute", "read"]),
      });
      const [first, second, other] = [
        await keyOf("author"),
        await keyOf("author"),
        await keyOf("ws_admin"),
      ];
      // The publish above spent one of the author's three; two more serve.
      const statuses = [];
      for (const key of [first, second]) {
        statuses.push((await call(s, "GET", "/api/x/one", key)).status);
      }
      deepEqual(statuses, [200, 200]);
      const refused = await s.fetch("/api/x/one", { headers: first });
      equal(refused.status, 429);
      ok(Number(refused.headers.get("retry-after")) > 0);
      equal((await refused.json()).error.code, "rate_limit.exceeded");
      equal((await call(s, "GET", "/api/x/one", second)).status, 429);
      // Another user's budget is untouched.
      equal((await call(s, "GET", "/api/x/one", other)).status, 200);
    } finally {
      await s.close();
    }
  },
);
