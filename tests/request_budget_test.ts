import { equal, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, type TestUser, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer, withTestServer } from "./support/harness.ts";

/** The wall-clock minute the per-minute budget counts in. */
const minute = () => Math.floor(Date.now() / 60_000);

Deno.test("per-user budget: RateLimit headers, 429 with Retry-After, keys draw from their owner's budget", async () => {
  const s = await startTestServer({
    env: {
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "3",
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100",
    },
  });
  try {
    const { workspace, users } = await seedRoles(s.runtime);
    /** Three requests of one user (two by session, one by key), then a fourth that is refused. */
    const burst = async (user: TestUser) => {
      const session = await sessionHeaders(s.runtime, user, workspace.name);
      const key = await userKey(s.runtime, user, workspace.id, ["read"]);
      const started = minute();
      const remaining: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await s.fetch("/api/v1/auth/me", { headers: session });
        await res.body?.cancel();
        equal(res.status, 200);
        equal(res.headers.get("RateLimit-Limit"), "3");
        remaining.push(res.headers.get("RateLimit-Remaining")!);
        ok(Number(res.headers.get("RateLimit-Reset")) >= 1);
      }
      const third = await s.fetch("/api/v1/auth/me", { headers: { "SVC-API-Key": key } });
      await third.body?.cancel();
      const refused = await s.fetch("/api/v1/auth/me", { headers: session });
      return { remaining, third, refused, sameMinute: minute() === started };
    };
    // A burst that straddles a minute edge counts in two budgets; minute edges are a minute apart,
    // so a second user's burst right after cannot straddle one too.
    let run = await burst(users.author);
    if (!run.sameMinute) run = await burst(users.promoter);
    ok(run.sameMinute);
    const { remaining, third, refused } = run;
    equal(remaining.join(), "2,1");
    equal(third.status, 200);
    equal(third.headers.get("RateLimit-Remaining"), "0");

    const body = await refused.json();
    equal(refused.status, 429);
    equal(body.error.code, "rate_limit.exceeded");
    const wait = Number(refused.headers.get("Retry-After"));
    ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    equal(refused.headers.get("RateLimit-Remaining"), "0");

    // Another user has a budget of their own; public platform routes are not budgeted.
    const other = await call(
      s,
      "GET",
      "/api/v1/auth/me",
      await sessionHeaders(s.runtime, users.viewer, workspace.name),
    );
    equal(other.status, 200);
    const health = await s.fetch("/health");
    await health.body?.cancel();
    equal(health.headers.get("RateLimit-Limit"), null);
  } finally {
    await s.close();
  }
});

Deno.test("per-user budget fails closed: an unreachable shared store answers rate_limit.unavailable", async () => {
  await withTestServer({}, async (s) => {
    const { workspace, users } = await seedRoles(s.runtime);
    const session = await sessionHeaders(s.runtime, users.viewer, workspace.name);
    await s.runtime.shared.close();
    const res = await s.fetch("/api/v1/auth/me", { headers: session });
    const body = await res.json();
    equal(res.status, 429);
    equal(body.error.code, "rate_limit.unavailable");
    equal(res.headers.get("Retry-After"), "1");
    equal(res.headers.get("RateLimit-Limit"), null);
    equal(JSON.stringify(body.error.details), "{}");
    ok(!/memory|redis/i.test(body.error.message));
  });
});
