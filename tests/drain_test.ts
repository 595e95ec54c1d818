/**
 * The graceful drain of a real `main.ts serve` process (docs/operations.md#faults-and-the-soak):
 * on SIGTERM it stops accepting at once, answers an in-flight `/api/x` call whose run is still
 * going once that run ends (200), aborts what is still running near the end of
 * `service.http.shutdown-grace-seconds` (a stream ends on `execution_aborted`, reason `shutdown`;
 * a serve waiting for such a run answers 503 `service.unavailable`), and exits 0.
 */
import { equal, match, ok } from "node:assert/strict";
import postgres from "postgres";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { adminScope, seedRoles, userKey } from "./support/access_fixtures.ts";
import { pgJdbcUrl } from "./support/datasources.ts";
import { testSecrets } from "./support/harness.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";
import { ServerProcess } from "./support/server_process.ts";
import { skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

const GRACE_SECONDS = 6;
/** The statement an in-flight serve waits for: well inside the grace's first part. */
const SLOW_SQL = "SELECT 7 AS n FROM pg_sleep(2)";
/** A run that ends only when aborted. */
const ENDLESS_SQL = "SELECT sum(range) AS s FROM range(1000000000000)";

Deno.test({
  name:
    "[postgres] SIGTERM drains: an in-flight /api/x call answers 200, what outlasts the grace ends aborted (503 for a serve), exit 0",
  ignore: skipUnless("postgres"),
  async fn() {
    const db = await freshPostgresDatabase();
    const dir = await Deno.makeTempDir({ prefix: "svc_drain_" });
    const env = {
      SERVICE_STORE_URL: db.url,
      SERVICE_DEMO_ENABLED: "false",
      SERVICE_HTTP_SHUTDOWN_GRACE_SECONDS: `${GRACE_SECONDS}`,
      ...testSecrets(),
    };
    const setup = { ...env, SERVICE_DATA_DIR: `${dir}/setup`, SERVICE_HTTP_PORT: "0" };
    const rt = await createRuntime(resolveConfig(readSources(setup), setup), {
      env: setup,
      logger: createLogger("error"),
    });
    let key: string, endless: string;
    try {
      const f = await seedRoles(rt);
      await rt.datasources.create(f.users.ws_admin.principal, adminScope(f), {
        name: "pg",
        dialect: "POSTGRES",
        jdbc_url: pgJdbcUrl(db.url),
        credential: { kind: "none", username: "postgres" },
      });
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const slow = await releasedPipeline(rt, ctx, "drain/slow", {
        nodes: [dql("rows", { source: "pg", sql: SLOW_SQL })],
      });
      endless = await releasedPipeline(rt, ctx, "drain/endless", {
        nodes: [dql("rows", { source: "tempdb", sql: ENDLESS_SQL })],
      });
      await rt.endpoints.publish(ctx, { path_pattern: "/slow", pipeline_id: slow });
      await rt.endpoints.publish(ctx, {
        path_pattern: "/endless",
        pipeline_id: endless,
        timeout_seconds: 60,
      });
      key = await userKey(rt, f.users.author, f.workspace.id, ["read", "execute"]);
    } finally {
      await rt.close();
    }

    const server = new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/serve` });
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      await server.ready;
      const headers = { "SVC-API-Key": key };
      const serve = (path: string) => fetch(`${server.url}/api/x/${path}`, { headers });
      const slowCall = serve("slow");
      const endlessCall = serve("endless");
      const stream = await fetch(`${server.url}/api/v1/pipelines/${endless}/execute`, {
        method: "POST",
        headers: { ...headers, accept: "text/event-stream", "content-type": "application/json" },
        body: "{}",
      });
      equal(stream.status, 200);
      const streamText = new Response(stream.body).text();
      // The slow serve's statement is running on the datasource.
      await eventually(
        async () =>
          (await sql`SELECT count(*)::int AS n FROM pg_stat_activity
                      WHERE query LIKE '%pg_sleep(2)%' AND pid <> pg_backend_pid()`)[0].n === 1,
        { what: "the slow serve's statement to run", ms: 20_000, intervalMs: 50 },
      );

      const t0 = performance.now();
      const stopped = server.stop("SIGTERM");
      // New work is refused at once: the listener no longer accepts.
      await eventually(
        () =>
          Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(server.url).port) })
            .then((c) => (c.close(), false), () => true),
        { what: "the listener to stop accepting", ms: 2_000, intervalMs: 20 },
      );

      const slowAnswer = await slowCall;
      const slowBody = await slowAnswer.json();
      equal(slowAnswer.status, 200, JSON.stringify(slowBody));
      match(JSON.stringify(slowBody), /"n"|7/);
      ok(performance.now() - t0 < (GRACE_SECONDS - 1.5) * 1000, "answered before the abort");

      const endlessAnswer = await endlessCall;
      const envelope = await endlessAnswer.json();
      equal(endlessAnswer.status, 503, JSON.stringify(envelope));
      equal(envelope.error.code, "service.unavailable");
      ok(envelope.correlation_id, "a correlation id");
      equal(endlessAnswer.headers.get("retry-after"), "1");

      match(await streamText, /execution_aborted[\s\S]*"reason":"shutdown"/);
      equal(await stopped, 0);
      const ms = performance.now() - t0;
      ok(ms < (GRACE_SECONDS + 2) * 1000, `the drain took ${Math.round(ms)} ms`);
      const statuses = await sql<{ status: string; n: number }[]>`
        SELECT status, count(*)::int AS n FROM executions GROUP BY status ORDER BY status`;
      equal(
        statuses.map((r) => `${r.status} ${r.n}`).join(", "),
        "ABORTED 2, SUCCESS 1",
      );
    } finally {
      await server.stop("SIGKILL");
      await sql.end();
      await db.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
