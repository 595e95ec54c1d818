import { equal } from "node:assert/strict";
import { LoginRateLimiter } from "./login_rate_limit.ts";

Deno.test("LoginRateLimiter: fixed one-minute window per client", () => {
  let now = 60_000 * 10;
  const limiter = new LoginRateLimiter(2, { now: () => now });
  equal(limiter.hit("a"), 0);
  equal(limiter.hit("a"), 0);
  equal(limiter.hit("a"), 60);
  equal(limiter.hit("b"), 0, "clients are counted apart");
  now += 30_000;
  equal(limiter.hit("a"), 30, "Retry-After counts down to the window's end");
  now += 30_000;
  equal(limiter.hit("a"), 0, "a new window starts a fresh budget");
});

Deno.test("LoginRateLimiter: past the tracked-client cap new clients pass unmetered and are counted", () => {
  const limiter = new LoginRateLimiter(1, { maxClients: 2, now: () => 0 });
  limiter.hit("a");
  limiter.hit("b");
  equal(limiter.hit("c"), 0);
  equal(limiter.hit("c"), 0);
  equal(limiter.saturated, 2);
  equal(limiter.hit("a"), 60, "tracked clients stay limited");
});
