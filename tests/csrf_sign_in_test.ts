/**
 * Sign-in issues a fresh `svc_csrf` (issue 22 finding 7; spec 1 §5.5 keeps it stable within the
 * session): a token planted in the browser before sign-in, by someone who can set cookies for
 * the host, is refused on the session's state-changing requests; the new one is accepted. Both
 * sign-ins: the local form and the OIDC callback.
 */
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { createUser, TEST_PASSWORD } from "./support/access_fixtures.ts";
import { CookieClient } from "./support/cookie_client.ts";
import { json, withTestServer } from "./support/harness.ts";
import { withOidc } from "./support/oidc_harness.ts";
import { forEachStoreKind } from "./support/stores.ts";

/** A well-formed token the service would take as the browser's own. */
const PLANTED = "planted_" + "A".repeat(40);

/** After sign-in: a new token was set, the planted one is refused, the new one accepted. */
async function plantedTokenRefused(b: CookieClient, origin: string): Promise<void> {
  const fresh = b.cookie(origin, "svc_csrf");
  ok(fresh, "sign-in sets svc_csrf");
  notEqual(fresh, PLANTED);
  const theme = (token: string) =>
    b.request(`${origin}/partials/profile/theme`, {
      method: "PATCH",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "SVC-CSRF-Token": token,
      },
      body: new URLSearchParams({ theme: "dark" }),
    });
  const refused = await theme(PLANTED);
  equal(refused.status, 403);
  const error = (await json(refused)).error;
  deepEqual([error.code, error.details], ["auth.csrf.invalid", { reason: "mismatch" }]);
  const accepted = await theme(fresh);
  await accepted.body?.cancel();
  equal(accepted.status, 200);
  // Stable within the session: a page view keeps it.
  const page = await b.request(`${origin}/dashboard`);
  await page.body?.cancel();
  equal(b.cookie(origin, "svc_csrf"), fresh);
}

forEachStoreKind(
  "issue 22 finding 7: local sign-in replaces a planted svc_csrf; the planted value is refused",
  async (store) => {
    await withTestServer({ store, env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } }, async (s) => {
      await createUser(s.runtime, "kim@example.com");
      const b = new CookieClient();
      b.setCookie(s.url, "svc_csrf", PLANTED);
      // The login page takes the planted token as the browser's and renders it in its form.
      const page = await b.request(`${s.url}/login`);
      ok((await page.text()).includes(`value="${PLANTED}"`));
      const login = await b.request(`${s.url}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          email: "kim@example.com",
          password: TEST_PASSWORD,
          _csrf: PLANTED,
        }),
      });
      await login.body?.cancel();
      deepEqual([login.status, login.headers.get("location")], [302, "/"]);
      await plantedTokenRefused(b, s.url);
    });
  },
);

forEachStoreKind(
  "issue 22 finding 7: the OIDC callback replaces a planted svc_csrf; the planted value is refused",
  (store) =>
    withOidc(async (t) => {
      t.account({ sub: "ada", email: "ada@corp.example" });
      const b = new CookieClient();
      b.setCookie(t.s.url, "svc_csrf", PLANTED);
      deepEqual(await t.signIn(b, "ada"), { status: 302, location: "/" });
      await plantedTokenRefused(b, t.s.url);
    }, { store }),
);
