import { deepEqual, equal } from "node:assert/strict";
import { createLogger } from "../lib/log.ts";
import { probeStagingEngine } from "../executions/mod.ts";
import { HealthService } from "./mod.ts";

const quiet = createLogger("error", () => {});

const reasonOf = (r: Awaited<ReturnType<HealthService["readiness"]>>) => r.ready ? null : r.reason;

Deno.test("a failing or hanging probe reports DOWN; the others stay UP", async () => {
  const health = new HealthService({
    database: () => Promise.resolve(),
    shared_store: () => Promise.reject(new Error("refused")),
    staging_engine: () => new Promise(() => {}),
  }, { timeoutMs: 50, cacheMs: 0, logger: quiet });
  deepEqual(await health.check(), {
    status: "DOWN",
    components: { database: "UP", shared_store: "DOWN", staging_engine: "DOWN" },
  });
});

Deno.test("concurrent checks share one probe and results are cached", async () => {
  let calls = 0;
  const probe = async () => {
    calls++;
    await new Promise((r) => setTimeout(r, 10));
  };
  const health = new HealthService(
    { database: probe, shared_store: probe, staging_engine: probe },
    { timeoutMs: 1000, cacheMs: 60_000, logger: quiet },
  );
  await Promise.all([health.check(), health.check(), health.check()]);
  await health.check();
  equal(calls, 3);
});

Deno.test("readiness needs startup, no draining and every component UP", async () => {
  const health = new HealthService(
    {
      database: () => Promise.resolve(),
      shared_store: () => Promise.resolve(),
      staging_engine: () => Promise.resolve(),
    },
    { timeoutMs: 1000, cacheMs: 0, logger: quiet },
  );
  equal(reasonOf(await health.readiness()), "starting");
  health.markStarted();
  equal((await health.readiness()).ready, true);
  health.markDraining();
  equal(reasonOf(await health.readiness()), "shutting down");
});

Deno.test("the staging engine probe runs a real in-memory DuckDB", async () => {
  await probeStagingEngine();
});
