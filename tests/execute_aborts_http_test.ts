/**
 * The three abort reasons end to end, on both stores, with the real executor over a MariaDB
 * datasource registered through the API: `DELETE /executions/{id}` (cancelled), a consumer that
 * leaves (client_disconnect, grace 0) and server shutdown (shutdown). Each time the running
 * `SLEEP` leaves the server's processlist, the stream (or its replay) passes the §6 ordering
 * checker and ends on `execution_aborted` with that reason, and the record says the same.
 */
import { equal } from "node:assert/strict";
import { checkEventOrder, type EventFrame } from "../src/executions/event_order.ts";
import { PIPELINE_KIND, VersionLifecycle } from "../src/versions/mod.ts";
import type { JsonObject } from "../src/versions/types.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { freshMariaDatabase, mariaAdmin } from "./support/datasources.ts";
import { frames } from "./support/executions_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { MARIADB_URL, skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { dql } from "./support/pipeline_body.ts";
import { eventually } from "./support/wait.ts";
import { executeOverHttp } from "./support/runs.ts";

async function sleeping(tag: string): Promise<number> {
  const admin = await mariaAdmin();
  try {
    const [rows] = await admin.query(
      "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
      [`%${tag}%`],
    );
    return (rows as unknown[]).length;
  } finally {
    await admin.end();
  }
}

interface Setup {
  s: TestServer;
  h: Record<string, string>;
  /** A pipeline whose only node sleeps on MariaDB, tagged to be found in the processlist. */
  sleeper(tag: string): Promise<string>;
  execute(id: string): Promise<Response>;
}

async function setup(s: TestServer, database: string): Promise<Setup> {
  const fx = await seedRoles(s.runtime);
  const admin = await sessionHeaders(s.runtime, fx.users.super_admin, "acme");
  const url = new URL(MARIADB_URL);
  const credential = url.password
    ? { kind: "password", username: url.username, secret: decodeURIComponent(url.password) }
    : { kind: "none", username: decodeURIComponent(url.username || "root") };
  const created = await call(s, "POST", "/api/v1/datasources", admin, {
    name: "maria",
    dialect: "MYSQL",
    jdbc_url: `jdbc:mariadb://${url.hostname}:${url.port || 3306}/${database}`,
    credential,
  });
  equal(created.status, 201, JSON.stringify(created.body));
  const pipelines = new VersionLifecycle({
    db: s.runtime.db,
    kind: PIPELINE_KIND,
    authoringEnabled: true,
  });
  const h = await sessionHeaders(s.runtime, fx.users.author, "acme");
  return {
    s,
    h,
    async sleeper(tag) {
      const name = `ops/${tag}`;
      return (await pipelines.create({
        actor: fx.users.author.principal,
        workspaceId: fx.workspace.id,
      }, {
        name,
        body: {
          name,
          schema_version: 1,
          nodes: [dql("nap", { source: "maria", sql: `SELECT SLEEP(60) /* ${tag} */` })],
        } as JsonObject,
        attrs: {},
      })).entity.id;
    },
    execute: (id) => executeOverHttp(s, h, id),
  };
}

/** Starts the sleeper and returns once the statement runs on the server. */
async function startSleeping(t: Setup, tag: string) {
  const res = await t.execute(await t.sleeper(tag));
  equal(res.status, 200);
  const id = res.headers.get("SVC-Execution-Id")!;
  const stream = frames(res);
  equal((await stream.next()).event, "execution_started");
  await eventually(async () => (await sleeping(tag)) === 1, {
    what: "SLEEP on MariaDB",
    ms: 10_000,
  });
  return { id, stream };
}

async function assertAbortedRun(t: Setup, id: string, events: EventFrame[], reason: string) {
  checkEventOrder(events, { expectDataReady: false });
  const last = events.at(-1)!;
  equal(last.event, "execution_aborted");
  equal(last.data.reason, reason);
  equal(events.filter((f) => f.data.node_id === "nap").at(-1)!.data.state, "aborted");
  const rec = await t.s.runtime.executions.repo.get(id);
  equal(rec?.record.status, "ABORTED");
  equal(rec?.record.abort_reason, reason);
}

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] cancel, disconnect and shutdown each KILL a running MariaDB statement`,
    ignore: skipUnless("mariadb") || (store === "postgres" && skipUnless("postgres")),
    async fn() {
      const maria = await freshMariaDatabase();
      const s = await startTestServer({
        store,
        env: { SERVICE_SSE_DISCONNECT_GRACE_SECONDS: "0" },
      });
      try {
        const t = await setup(s, maria.name);

        const cancelTag = `cancel_${crypto.randomUUID().slice(0, 8)}`;
        const cancelled = await startSleeping(t, cancelTag);
        const del = await s.fetch(`/api/v1/executions/${cancelled.id}`, {
          method: "DELETE",
          headers: t.h,
        });
        equal(del.status, 204);
        await assertAbortedRun(t, cancelled.id, await cancelled.stream.rest(), "cancelled");
        await eventually(async () => (await sleeping(cancelTag)) === 0, {
          what: "the cancelled SLEEP to stop",
          ms: 10_000,
        });
        const again = await call(s, "DELETE", `/api/v1/executions/${cancelled.id}`, t.h);
        equal(again.body.error.code, "pipeline.execution.not_running");

        const leftTag = `left_${crypto.randomUUID().slice(0, 8)}`;
        const left = await startSleeping(t, leftTag);
        await left.stream.close();
        await eventually(async () => (await sleeping(leftTag)) === 0, {
          what: "the abandoned SLEEP to stop",
          ms: 10_000,
        });
        await eventually(
          async () => (await s.runtime.executions.repo.get(left.id))?.record.status === "ABORTED",
          { what: "the abandoned run to end", ms: 10_000 },
        );
        const replay = await call(s, "GET", `/api/v1/executions/${left.id}/events`, t.h);
        await assertAbortedRun(t, left.id, replay.body.data.events, "client_disconnect");

        const downTag = `down_${crypto.randomUUID().slice(0, 8)}`;
        const down = await startSleeping(t, downTag);
        // The step runtime.close() takes first.
        await s.runtime.executions.close(5000);
        await assertAbortedRun(t, down.id, await down.stream.rest(), "shutdown");
        await eventually(async () => (await sleeping(downTag)) === 0, {
          what: "the SLEEP to stop at shutdown",
          ms: 10_000,
        });
      } finally {
        await s.close();
        await maria.drop();
      }
    },
  });
}
