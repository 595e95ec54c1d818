/**
 * Propagation bounds across three real `main.ts serve` processes on one PostgreSQL store and one
 * Redis (docs/operations.md#propagation-bounds): a change acknowledged by one replica takes effect
 * on the two others within a measured bound. Each change is made over HTTP on replica A after B
 * and C have cached the state before it (so a cache miss cannot explain the result); the time is
 * from A's answer until both B and C show the change. The shared store announces every one of
 * these changes, so the bound is 1 s, far inside the one-minute TTL of the caches.
 */
import { ok } from "node:assert/strict";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { testSecrets } from "./support/harness.ts";
import { dql, pipelineBody } from "./support/pipeline_body.ts";
import { ServerProcess } from "./support/server_process.ts";
import { REDIS_URL, skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";
import type { JsonObject } from "../src/versions/mod.ts";

/** Where the shared store announces the change. */
const BOUND_MS = 1_000;
/** How long a test waits before calling a change lost (the caches' own TTL is a minute). */
const GIVE_UP_MS = 30_000;
const POLL_MS = 25;
const MAX_IN_FLIGHT = 4;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function status(url: string, key: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    headers: { "SVC-API-Key": key },
    signal: AbortSignal.timeout(GIVE_UP_MS),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * Milliseconds from `acked` to the sending of the first request to `base` that shows `after`.
 * Requests leave every POLL_MS whether or not the last one answered, so a slow answer on a busy
 * machine does not count as propagation time: what is measured is when the replica's state
 * changed, give or take one interval.
 */
async function firstSeen(
  base: string,
  path: string,
  key: string,
  after: (r: { status: number; text: string }) => boolean,
  acked: number,
): Promise<number> {
  const inFlight: Promise<void>[] = [];
  let seen = Infinity;
  let open = 0;
  while (seen === Infinity && performance.now() - acked < GIVE_UP_MS) {
    // A few requests at a time: more would only starve a busy machine's replicas further.
    if (open >= MAX_IN_FLIGHT) {
      await sleep(POLL_MS);
      continue;
    }
    const sent = performance.now();
    open++;
    inFlight.push(
      status(`${base}${path}`, key).then((r) => {
        if (after(r)) seen = Math.min(seen, sent - acked);
      }, () => {/* too slow on a busy machine; a later request asks again */}).finally(() =>
        open--
      ),
    );
    await sleep(POLL_MS);
  }
  await Promise.all(inFlight);
  ok(seen !== Infinity, `${path}: the change never showed on ${base}`);
  return seen;
}

Deno.test({
  name: "[postgres+redis] five changes made on one replica bind the two others within 1 s",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const db = await freshPostgresDatabase();
    const dir = await Deno.makeTempDir({ prefix: "svc_bounds_" });
    const env = {
      SERVICE_STORE_URL: db.url,
      SERVICE_SHARED_STORE_URL: REDIS_URL,
      SERVICE_DEMO_ENABLED: "false",
      ...testSecrets(),
    };
    const servers = ["a", "b", "c"].map((n) =>
      new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/${n}` })
    );
    const setupEnv = { ...env, SERVICE_DATA_DIR: `${dir}/setup`, SERVICE_HTTP_PORT: "0" };
    const setup = await createRuntime(resolveConfig(readSources(setupEnv), setupEnv), {
      env: setupEnv,
      logger: createLogger("error"),
    });
    const figures: string[] = [];
    try {
      await Promise.all(servers.map((s) => s.ready));
      const [a, ...others] = servers;
      const f = await seedRoles(setup);
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const life = setup.pipelines.lifecycle;
      const body = (sql: string) =>
        pipelineBody({ name: "api/one", nodes: [dql("r", { source: "tempdb", sql })] });
      const made = await life.create(ctx, {
        name: "api/one",
        body: body("SELECT 1 AS v_one") as JsonObject,
        attrs: {},
      });
      const released = await life.release(ctx, made.entity.id, made.version.body_hash);
      const id = made.entity.id;
      await setup.endpoints.publish(ctx, { path_pattern: "/one", pipeline_id: id });
      const keyOf = (role: "author" | "ws_admin") =>
        userKey(setup, f.users[role], f.workspace.id, ["read", "execute"]);
      const [served, revoked, adminKey] = [
        await keyOf("author"),
        await keyOf("author"),
        await keyOf("ws_admin"),
      ];
      const json = { "content-type": "application/json", accept: "application/json" };
      const author = { ...await sessionHeaders(setup, f.users.author, "acme"), ...json };
      const promoter = { ...await sessionHeaders(setup, f.users.promoter, "acme"), ...json };
      const superAdmin = { ...await sessionHeaders(setup, f.users.super_admin), ...json };

      /**
       * Waits for `before` on B and C (their caches hold it), makes the change on A, then answers
       * how long after A's acknowledgement both B and C showed `after`.
       */
      const measure = async (
        what: string,
        path: string,
        key: string,
        before: (r: { status: number; text: string }) => boolean,
        change: () => Promise<Response>,
        after: (r: { status: number; text: string }) => boolean,
      ) => {
        for (const s of others) {
          const until = Date.now() + GIVE_UP_MS;
          const ask = () => status(`${s.url}${path}`, key).catch(() => ({ status: 0, text: "" }));
          while (!before(await ask())) {
            ok(Date.now() < until, `${what}: the state before never showed on ${s.url}`);
            await sleep(20);
          }
        }
        const res = await change();
        await res.body?.cancel();
        ok(res.ok, `${what}: the change was refused (${res.status})`);
        const acked = performance.now();
        const times = await Promise.all(
          others.map((s) => firstSeen(s.url, path, key, after, acked)),
        );
        const worst = Math.max(...times);
        figures.push(`${what}: ${worst.toFixed(0)} ms`);
        ok(worst <= BOUND_MS, `${what} took ${worst.toFixed(0)} ms to reach every replica`);
      };
      const post = (path: string, headers: Record<string, string>, payload?: unknown, extra = {}) =>
        fetch(`${a.url}${path}`, {
          method: "POST",
          headers: { ...headers, ...extra },
          body: payload === undefined ? undefined : JSON.stringify(payload),
        });

      await measure(
        "endpoint published",
        "/api/x/two",
        served,
        (r) => r.status === 404,
        () => post("/api/v1/endpoints", author, { path_pattern: "/two", pipeline_id: id }),
        (r) => r.status === 200,
      );
      const draft = await life.update(ctx, id, released.version.body_hash, {
        body: body("SELECT 2 AS v_two") as JsonObject,
      });
      await measure(
        "pipeline released",
        "/api/x/one",
        served,
        (r) => r.status === 200 && r.text.includes("v_one"),
        () =>
          post(`/api/v1/pipelines/${id}/release`, promoter, undefined, {
            "If-Match": draft.version.body_hash,
          }),
        (r) => r.status === 200 && r.text.includes("v_two"),
      );
      await measure(
        "key revoked",
        "/api/x/one",
        revoked,
        (r) => r.status === 200,
        () =>
          fetch(`${a.url}/api/v1/auth/api-keys/${revoked.split(".")[0]}`, {
            method: "DELETE",
            headers: author,
          }),
        (r) => r.status === 401,
      );
      await measure(
        "user deactivated",
        "/api/x/one",
        adminKey,
        (r) => r.status === 200,
        () => post(`/api/v1/auth/users/${f.users.ws_admin.id}/deactivate`, superAdmin),
        (r) => r.status === 401 || r.status === 403,
      );
      await measure(
        "workspace deactivated",
        "/api/x/one",
        served,
        (r) => r.status === 200,
        () => post(`/api/v1/workspaces/acme/deactivate`, superAdmin),
        (r) => r.status !== 200,
      );
    } finally {
      console.log(`propagation across three processes: ${figures.join("; ")}`);
      await Promise.all(servers.map((s) => s.stop()));
      await setup.close();
      await db.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
