/**
 * Liveness across replicas (spec 1 §5.6, §3): deactivating a user or removing a membership takes
 * effect at once on the instance that made the change, and on another instance sharing the store
 * within the liveness cache TTL (here 1 s), for sessions and for keys alike. The second instance
 * is polled against a deadline well past the TTL; nothing waits a fixed time.
 */
import { equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer, testSecrets, type TestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { eventually } from "./support/wait.ts";

const TTL_SECONDS = 1;

async function twoReplicas(fn: (a: TestServer, b: TestServer) => Promise<void>) {
  const env = { ...testSecrets(), SERVICE_AUTH_API_KEYS_CACHE_TTL_SECONDS: String(TTL_SECONDS) };
  const a = await startTestServer({ store: "postgres", env });
  let b: TestServer | undefined;
  try {
    b = await startTestServer({
      store: "postgres",
      env,
      storeUrl: () => a.runtime.config.store.url,
    });
    await fn(a, b);
  } finally {
    await b?.close();
    await a.close();
  }
}

/** Repeats `probe` until it returns `want` or the deadline (TTL plus a wide margin) passes. */
async function becomes<T>(probe: () => Promise<T>, want: T, what: string): Promise<void> {
  let last: T | undefined;
  const deadline = { ms: TTL_SECONDS * 1000 + 15_000, intervalMs: 50 };
  try {
    await eventually(async () => (last = await probe()) === want, deadline);
  } catch {
    equal(last, want, `${what}: still ${String(last)} after the TTL`);
  }
}

Deno.test({
  name: "[postgres] a deactivation reaches the other replica's sessions and keys within the TTL",
  ignore: skipUnless("postgres"),
  fn: () =>
    twoReplicas(async (a, b) => {
      const f = await seedRoles(a.runtime);
      const admin = await sessionHeaders(a.runtime, f.users.super_admin);
      const author = await sessionHeaders(a.runtime, f.users.author);
      const key = await userKey(a.runtime, f.users.author, f.workspace.id, ["read"]);
      const me = (s: TestServer, h: Record<string, string>) =>
        call(s, "GET", "/api/v1/auth/me", h).then((r) => r.status);
      // Both replicas have the author cached as live.
      for (const s of [a, b]) {
        equal(await me(s, author), 200);
        equal(await me(s, { "SVC-API-Key": key }), 200);
      }
      const off = await call(
        a,
        "POST",
        `/api/v1/auth/users/${f.users.author.id}/deactivate`,
        admin,
      );
      equal(off.status, 200);
      equal(await me(a, author), 401, "at once on the acting replica");
      equal(await me(a, { "SVC-API-Key": key }), 401, "at once on the acting replica");
      await becomes(() => me(b, author), 401, "session on the other replica");
      await becomes(() => me(b, { "SVC-API-Key": key }), 401, "key on the other replica");
    }),
});

Deno.test({
  name:
    "[postgres] a removed membership reaches the other replica's sessions and keys within the TTL",
  ignore: skipUnless("postgres"),
  fn: () =>
    twoReplicas(async (a, b) => {
      const f = await seedRoles(a.runtime);
      const admin = await sessionHeaders(a.runtime, f.users.super_admin);
      const author = {
        ...(await sessionHeaders(a.runtime, f.users.author)),
        "SVC-Workspace": "acme",
      };
      const key = await userKey(a.runtime, f.users.author, f.workspace.id, ["read"]);
      const members = (s: TestServer, h: Record<string, string>) =>
        call(s, "GET", "/api/v1/workspaces/acme/members", h).then((r) =>
          r.body.error?.code ?? r.status
        );
      for (const s of [a, b]) {
        equal(await members(s, author), 200);
        equal(await members(s, { "SVC-API-Key": key }), 200);
      }
      const removed = await call(
        a,
        "DELETE",
        `/api/v1/workspaces/acme/members/${f.users.author.id}`,
        admin,
      );
      equal(removed.status, 204);
      equal(await members(a, author), "workspace.not_found", "at once on the acting replica");
      // A key addressing its pinned workspace by name: the issuer's lost membership is not-found.
      equal(await members(a, { "SVC-API-Key": key }), "workspace.not_found");
      await becomes(() => members(b, author), "workspace.not_found", "session on the other");
      await becomes(
        () => members(b, { "SVC-API-Key": key }),
        "workspace.not_found",
        "key on the other replica",
      );
    }),
});
