/**
 * Health on the production pair (PostgreSQL + Redis) and on the embedded default, and DOWN for a
 * component whose server goes away: each store is reached through a TCP proxy the test cuts.
 */
import { deepEqual, equal } from "node:assert/strict";
import { z } from "zod";
import { ok as okEnvelope } from "../src/http/envelope.ts";
import { json, startTestServer, withTestServer } from "./support/harness.ts";
import { POSTGRES_ADMIN_URL, REDIS_URL, skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { startTcpProxy } from "./support/tcp_proxy.ts";

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] /health and /ready answer UP on a fresh store`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      await withTestServer({ store }, async (s) => {
        equal((await json(await s.fetch("/health"))).data.status, "UP");
        equal((await s.fetch("/ready").then((r) => r.json())).data.ready, true);
      });
    },
  });
}

Deno.test({
  name: "PostgreSQL + Redis: UP, then DOWN for the component that stops, /ready 503",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const pg = new URL(POSTGRES_ADMIN_URL);
    const redis = new URL(REDIS_URL);
    const pgProxy = startTcpProxy({ hostname: pg.hostname, port: Number(pg.port) });
    const redisProxy = startTcpProxy({ hostname: redis.hostname, port: Number(redis.port) });
    const s = await startTestServer({
      store: "postgres",
      storeUrl: (fresh) => {
        const u = new URL(fresh);
        u.port = String(pgProxy.port);
        return u.toString();
      },
      env: {
        SERVICE_SHARED_STORE_URL: `redis://127.0.0.1:${redisProxy.port}`,
        SERVICE_HEALTH_PROBE_TIMEOUT_MS: "1500",
      },
    });
    try {
      const up = await json(await s.fetch("/health"));
      deepEqual(up.data.components, { database: "UP", shared_store: "UP", staging_engine: "UP" });
      equal(s.runtime.shared.kind, "redis");

      await redisProxy.cut();
      const noRedis = await json(await s.fetch("/health"));
      equal(noRedis.data.status, "DOWN");
      deepEqual(noRedis.data.components, {
        database: "UP",
        shared_store: "DOWN",
        staging_engine: "UP",
      });
      const ready = await s.fetch("/ready");
      equal(ready.status, 503);
      equal((await json(ready)).error.details.reason, "shared_store down");

      await pgProxy.cut();
      const noPg = await json(await s.fetch("/health"));
      deepEqual(noPg.data.components, {
        database: "DOWN",
        shared_store: "DOWN",
        staging_engine: "UP",
      });
    } finally {
      await s.close();
      await pgProxy.cut();
      await redisProxy.cut();
    }
  },
});

Deno.test("graceful shutdown finishes the request in flight and refuses new connections", async () => {
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const s = await startTestServer({
    extendRoutes: (router) =>
      router.add({
        method: "get",
        // A public path, so the test needs no credential to hold a request in flight.
        path: "/site/slow",
        tag: "test",
        summary: "slow",
        access: "public",
        response: z.string(),
      }, async (c) => {
        entered();
        await gate;
        return okEnvelope(c, "finished");
      }),
  });
  const inFlight = s.fetch("/site/slow");
  await inside;
  const closing = s.close();
  setTimeout(release, 50);
  const res = await inFlight;
  equal(res.status, 200);
  equal((await json(res)).data, "finished");
  await closing;
  const refused = await fetch(`${s.url}/health`).then(() => "answered", () => "refused");
  equal(refused, "refused");
});
