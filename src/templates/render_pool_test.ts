/**
 * The render pool (issue 11 item 4): a render that ignores liquidjs's own time limit is stopped
 * at the pool's deadline, an abort stops a running or a queued render, and a stopped worker is
 * replaced by a fresh one.
 */
import { equal, ok, rejects } from "node:assert/strict";
import { DEFAULT_RENDER_LIMITS, renderTemplate } from "./render.ts";
import { DEADLINE_GRACE_MS, RenderPool, renderPool } from "./render_pool.ts";
import { render, UNCOOPERATIVE } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

const request = (body: string) => ({
  kind: "render" as const,
  request: { template: { id: "t", version: 1 }, body, dialect: "POSTGRES" as const, imports: [] },
  canLoad: false,
});

/** A test on a pool of its own with one worker, closed afterwards. */
function oneWorkerTest(name: string, fn: (pool: RenderPool) => Promise<void>): void {
  Deno.test(name, async () => {
    const pool = new RenderPool(1);
    try {
      await fn(pool);
    } finally {
      pool.close();
    }
  });
}

Deno.test("a render past its time limit is stopped mid-filter, refused with its limit, and its worker replaced", async () => {
  const pool = renderPool();
  await render("SELECT 1"); // a warm worker: its start-up is not the render's time
  const replaced = pool.replaced;
  const started = performance.now();
  await refuses(
    render(UNCOOPERATIVE, {}, { limits: { max_time_ms: 200 } }),
    "template.render.limit_exceeded",
    { limit: "time", max: 200 },
  );
  const took = performance.now() - started;
  ok(took >= 200 && took < 200 + DEADLINE_GRACE_MS + 1500, `stopped after ${took} ms`);
  equal(pool.replaced, replaced + 1, "the worker was terminated");
  // The fresh worker renders as before.
  equal((await render("SELECT :a {% if params.a %}1{% endif %}", { a: 1 })).sql, "SELECT :a 1");
});

Deno.test("an abort terminates the worker running the render and rejects with the abort's reason", async () => {
  const pool = renderPool();
  const replaced = pool.replaced;
  const cancel = new AbortController();
  const started = performance.now();
  const running = renderTemplate({
    template: { id: "t", version: 1 },
    body: UNCOOPERATIVE,
    dialect: "POSTGRES",
    imports: [],
    signal: cancel.signal,
  });
  const reason = new DOMException("execution cancelled", "AbortError");
  cancel.abort(reason);
  await rejects(running, (e) => e === reason);
  ok(performance.now() - started < DEFAULT_RENDER_LIMITS.max_time_ms, "before any deadline");
  equal(pool.replaced, replaced + 1);
  equal((await render("SELECT 1")).sql, "SELECT 1");
});

oneWorkerTest(
  "an abort takes a queued render out of the queue without touching the running one",
  async (pool) => {
    const slow = pool.run(request(UNCOOPERATIVE), 300, undefined, undefined);
    const cancel = new AbortController();
    const queued = pool.run(request("SELECT 1"), 2000, undefined, cancel.signal);
    cancel.abort(new Error("gone"));
    await rejects(queued, /gone/);
    equal(pool.replaced, 0, "the running render's worker is still up");
    await refuses(slow, "template.render.limit_exceeded", { limit: "time", max: 300 });
    equal(pool.replaced, 1);
    equal((await pool.run(request("SELECT 2"), 2000, undefined, undefined))?.sql, "SELECT 2");
    equal(pool.workers, 1);
  },
);

oneWorkerTest("an already aborted signal never reaches a worker", async (pool) => {
  const reason = new Error("already");
  await rejects(
    pool.run(request("SELECT 1"), 2000, undefined, AbortSignal.abort(reason)),
    (e) => e === reason,
  );
  equal(pool.workers, 0);
});

oneWorkerTest(
  "a request that cannot cross to a worker fails alone and leaves the worker free",
  async (pool) => {
    const job = request("SELECT 1");
    const odd = {
      ...job,
      request: { ...job.request, template: { id: "t", version: 1, f: () => 1 } },
    };
    await rejects(pool.run(odd as typeof job, 2000, undefined, undefined), /could not be cloned/);
    equal((await pool.run(request("SELECT 3"), 2000, undefined, undefined))?.sql, "SELECT 3");
    equal(pool.replaced, 0);
  },
);
