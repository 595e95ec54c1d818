/**
 * OIDC login end to end (spec 1 §5.2, §4.1): a real OpenID Provider (`oidc-provider`) on a
 * loopback port, the service beside it, and a cookie-keeping client driving the whole redirect
 * dance: service → provider login form → callback → session. Each refusal is checked for its
 * banner redirect and its audit row; none may answer a 500.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createUser } from "./support/access_fixtures.ts";
import { CookieClient } from "./support/cookie_client.ts";
import type { TestAccount, TestProvider } from "./support/oidc_provider.ts";
import { freePort, withTestServer } from "./support/harness.ts";
import { me, type Setup, withOidc } from "./support/oidc_harness.ts";
import { skipUnless } from "./support/services.ts";
import { forEachStoreKind, STORE_KINDS, type StoreKind } from "./support/stores.ts";

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] a first OIDC login materialises an invitation and lands in that workspace`,
    ignore: store === "postgres" && skipUnless("postgres"),
    fn: () =>
      withOidc(async (t) => {
        const root = await createUser(t.s.runtime, "root@corp.example", { isAdmin: true });
        await t.s.runtime.workspaces.create(root.principal, { name: "acme" });
        await t.s.runtime.workspaces.addMember(root.principal, "acme", {
          email: "Ada@Corp.example",
          author: true,
        });
        t.account({
          sub: "ada-1",
          email: "ADA@corp.example",
          name: "Ada L",
          picture: "https://p/a",
        });
        const b = new CookieClient();
        const res = await t.signIn(b, "ada-1");
        deepEqual(res, { status: 302, location: "/" });
        const body = await me(t.s, b);
        equal(body.data.email, "ada@corp.example");
        equal(body.data.workspace, "acme");
        const user = await t.s.runtime.db.first<Record<string, unknown>>(
          "SELECT * FROM users WHERE email = 'ada@corp.example'",
        );
        deepEqual(
          [user?.provider, user?.provider_subject, user?.display_name, user?.profile_picture_url],
          ["corp", "ada-1", "Ada L", "https://p/a"],
        );
        ok(user?.last_login_at);
        const success = await t.audit("auth.login.success");
        equal(success.length, 1);
        deepEqual(
          [success[0].provider, (success[0].details as Record<string, unknown>).provider],
          ["corp", "corp"],
        );
        const materialised = await t.audit("workspace.invitation_materialised");
        equal(materialised.length, 1);
        equal((materialised[0].details as Record<string, unknown>).inviter, root.id);
        equal((await t.audit("workspace.member_added")).length, 0, "no demo join");
        equal(t.notices.length, 1);
        deepEqual([t.notices[0].email, t.notices[0].workspace], ["ada@corp.example", "acme"]);

        // The next login refreshes the profile and is no new user.
        t.account({ sub: "ada-1", email: "ada@corp.example", name: "Ada Lovelace" });
        deepEqual(await t.signIn(new CookieClient(), "ada-1"), { status: 302, location: "/" });
        const again = await t.s.runtime.db.first<{ display_name: string }>(
          "SELECT display_name FROM users WHERE email = 'ada@corp.example'",
        );
        equal(again?.display_name, "Ada Lovelace");
        equal(t.notices.length, 1);
      }, { store }),
  });
}

/** `withOidc` on one store: the OIDC login writes users, memberships and invitations. */
const withOidcOn = (
  store: StoreKind,
  fn: Parameters<typeof withOidc>[0],
  options: Parameters<typeof withOidc>[1] = {},
) => withOidc(fn, { ...options, store });

/** Registers `name` once per store, each with its own OIDC world (see `withOidc`). */
function oidcTest(
  name: string,
  fn: Parameters<typeof withOidc>[0],
  options: Parameters<typeof withOidc>[1] = {},
): void {
  forEachStoreKind(name, (store) => withOidcOn(store, fn, options));
}

oidcTest(
  "a first OIDC login with nothing to join lands as a demo viewer; the session is amr oidc",
  async (t) => {
    t.account({ sub: "bo", email: "bo@corp.example" });
    const b = new CookieClient();
    deepEqual(await t.signIn(b, "bo"), { status: 302, location: "/" });
    equal((await me(t.s, b)).data.workspace, "demo");
    const joined = await t.audit("workspace.member_added");
    equal(joined.length, 1);
    equal((joined[0].details as Record<string, unknown>).reason, "first_login_demo_viewer");
    const token = b.cookie(t.s.url, "svc_session")!;
    const claims = await t.s.runtime.sessions.verify(token);
    deepEqual([claims.amr, claims.active_workspace, claims.name], [
      "oidc",
      "demo",
      "bo@corp.example",
    ]);
    // An OIDC-opened session is never sent to the password change page.
    equal((await b.request(`${t.s.url}/dashboard`)).status, 200);
  },
);

oidcTest(
  "the bootstrap email becomes super admin at its first login: one grant, no demo join, lands in the one workspace",
  async (t) => {
    t.account({ sub: "root", email: "Root@Corp.example" });
    const b = new CookieClient();
    deepEqual(await t.signIn(b, "root"), { status: 302, location: "/" });
    // A super admin reaches every active workspace; the demo is the only one, so the session
    // lands there (DECISIONS.md "landing workspace") without a membership row.
    const body = await me(t.s, b);
    equal(body.data.workspace?.name ?? body.data.workspace, "demo");
    const grants = await t.audit("auth.user.admin_granted");
    equal(grants.length, 1);
    equal((grants[0].details as Record<string, unknown>).actor, "bootstrap");
    equal((await t.audit("workspace.member_added")).length, 0);
  },
  { env: { SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "root@corp.example" } },
);

const REFUSALS: {
  name: string;
  account?: Partial<TestAccount>;
  env?: Record<string, string>;
  misissue?: TestProvider["misissue"];
  before?: (t: Setup) => Promise<void>;
  banner: string;
  event: string;
  reason?: string;
}[] = [
  {
    name: "an unverified email",
    account: { email_verified: false },
    banner: "oidc",
    event: "auth.login.oidc_error",
    reason: "email_unverified",
  },
  {
    name: "a domain off the allowlist",
    env: { SERVICE_AUTH_ALLOWLIST_DOMAINS: "other.example, third.example" },
    banner: "domain_not_allowed",
    event: "auth.login.domain_not_allowed",
  },
  {
    name: "an inactive user",
    before: async (t) => {
      const u = await createUser(t.s.runtime, "eve@corp.example");
      await t.s.runtime.db.execute("UPDATE users SET is_active = $1 WHERE id = $2", [false, u.id]);
    },
    banner: "inactive",
    event: "auth.login.user_inactive",
  },
  {
    name: "an ID token for another audience",
    misissue: "wrong_audience",
    banner: "oidc",
    event: "auth.login.oidc_error",
    reason: "id_token_invalid",
  },
  {
    name: "an expired ID token",
    misissue: "expired",
    banner: "oidc",
    event: "auth.login.oidc_error",
    reason: "id_token_invalid",
  },
  {
    name: "an ID token signed with a key the JWKS does not hold",
    misissue: "foreign_key",
    banner: "oidc",
    event: "auth.login.oidc_error",
    reason: "id_token_invalid",
  },
];

for (const c of REFUSALS) {
  Deno.test(`OIDC login refuses ${c.name}: banner ${c.banner}, audited ${c.event}, no session`, () =>
    withOidc(async (t) => {
      await c.before?.(t);
      t.account({ sub: "eve", email: "eve@corp.example", ...c.account });
      t.op.misissue = c.misissue;
      const b = new CookieClient();
      deepEqual(await t.signIn(b, "eve"), { status: 302, location: `/login?error=${c.banner}` });
      equal(b.cookie(t.s.url, "svc_session"), undefined);
      equal(b.cookie(t.s.url, "svc_oauth2_authz"), undefined, "the state is single-use");
      const rows = await t.audit(c.event);
      equal(rows.length, 1);
      equal(rows[0].provider, "corp");
      if (c.reason) equal((rows[0].details as Record<string, unknown>).reason, c.reason);
      equal((await t.audit("auth.login.success")).length, 0);
      const page = await (await b.request(`${t.s.url}/login?error=${c.banner}`)).text();
      match(page, /class="banner error"/);
    }, { env: c.env }));
}

oidcTest(
  "a tampered state and a missing state cookie are refused with the oidc banner",
  async (t) => {
    t.account({ sub: "eve", email: "eve@corp.example" });
    const b = new CookieClient();
    const callback = await t.toCallback(b, "eve");
    const tampered = new URL(callback);
    tampered.searchParams.set("state", `${callback.searchParams.get("state")}x`);
    const res = await b.request(tampered);
    equal(res.headers.get("location"), "/login?error=oidc");
    const noCookie = await new CookieClient().request(callback);
    equal(noCookie.headers.get("location"), "/login?error=oidc");
    const reasons = (await t.audit("auth.login.oidc_error")).map((r) =>
      (r.details as Record<string, unknown>).reason
    );
    deepEqual(reasons, ["state_mismatch", "state_invalid"]);
    equal((await t.audit("auth.login.success")).length, 0);
  },
);

oidcTest(
  "a replayed authorization code is refused by the provider and answered with the oidc banner",
  async (t) => {
    t.account({ sub: "eve", email: "eve@corp.example" });
    const b = new CookieClient();
    const callback = await t.toCallback(b, "eve");
    const authz = b.cookie(t.s.url, "svc_oauth2_authz")!;
    const first = await b.request(callback);
    equal(first.headers.get("location"), "/");
    // An attacker holding both the callback URL and the state cookie replays them.
    const attacker = new CookieClient();
    attacker.setCookie(t.s.url, "svc_oauth2_authz", authz);
    const replay = await attacker.request(callback);
    equal(replay.status, 302);
    equal(replay.headers.get("location"), "/login?error=oidc");
    const errors = await t.audit("auth.login.oidc_error");
    equal(errors.length, 1);
    equal((errors[0].details as Record<string, unknown>).reason, "token_error");
  },
);

Deno.test("a provider that is down answers the oidc banner, audited, never a 500", async () => {
  const dead = `http://127.0.0.1:${freePort()}`;
  await withOidc(async (t) => {
    const b = new CookieClient();
    const res = await b.request(`${t.s.url}/oauth2/authorization/corp`);
    equal(res.status, 302);
    equal(res.headers.get("location"), "/login?error=oidc");
    equal(b.cookie(t.s.url, "svc_oauth2_authz"), undefined);
    const rows = await t.audit("auth.login.oidc_error");
    equal((rows[0].details as Record<string, unknown>).reason, "discovery_failed");
    const unknown = await b.request(`${t.s.url}/oauth2/authorization/nope`);
    equal(unknown.status, 404);
    await unknown.body?.cancel();
  }, { issuer: dead });
});

oidcTest(
  "the redirect carries PKCE, nonce and the base-url redirect URI; the state cookie is HttpOnly Lax",
  async (t) => {
    const b = new CookieClient();
    const res = await b.request(`${t.s.url}/oauth2/authorization/corp`, {
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    });
    equal(res.status, 302);
    const to = new URL(res.headers.get("location")!);
    equal(to.origin, t.op.issuer);
    equal(to.searchParams.get("redirect_uri"), `${t.s.url}/login/oauth2/code/corp`);
    equal(to.searchParams.get("code_challenge_method"), "S256");
    equal(to.searchParams.get("scope"), "openid profile email");
    ok(to.searchParams.get("nonce") && to.searchParams.get("state"));
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_oauth2_authz="))!;
    match(cookie, /HttpOnly/);
    match(cookie, /SameSite=Lax/);
    match(cookie, /Path=\//);
    ok(!/Secure/.test(cookie), "an http base-url drops Secure");
    const page = await (await b.request(`${t.s.url}/login`)).text();
    match(page, /href="\/oauth2\/authorization\/corp">Sign in with Corp SSO</);
    ok(!page.includes(`action="/login"`), "no form without local accounts");
    ok(!page.includes(`class="divider"`));
  },
);

oidcTest(
  "an invitation into a deactivated workspace stays pending at first login and goes live at the next after reactivation",
  async (t) => {
    const root = await createUser(t.s.runtime, "root@corp.example", { isAdmin: true });
    await t.s.runtime.workspaces.create(root.principal, { name: "acme" });
    await t.s.runtime.workspaces.addMember(root.principal, "acme", {
      email: "cy@corp.example",
      promoter: true,
    });
    const invitedAt = (await t.s.runtime.workspaces.members("acme")).invitations[0].invited_at;
    await t.s.runtime.workspaces.deactivate(root.principal, "acme");
    t.account({ sub: "cy", email: "cy@corp.example" });
    const first = new CookieClient();
    await t.signIn(first, "cy");
    equal((await me(t.s, first)).data.workspace, "demo");
    equal((await t.s.runtime.workspaces.members("acme")).invitations.length, 1);

    await t.s.runtime.workspaces.reactivate(root.principal, "acme");
    const next = new CookieClient();
    await t.signIn(next, "cy");
    equal((await me(t.s, next)).data.workspace, "acme", "joined_at = invited_at is the oldest");
    const { members, invitations } = await t.s.runtime.workspaces.members("acme");
    equal(invitations.length, 0);
    const cy = members.find((m) => m.email === "cy@corp.example")!;
    deepEqual([cy.promoter, cy.author, cy.joined_at], [true, false, invitedAt]);
    const rows = await t.audit("workspace.invitation_materialised");
    equal((rows[0].details as Record<string, unknown>).inviter, root.id);
  },
);

oidcTest(
  "a user who cancels at the provider comes back to the oidc banner, audited provider_error",
  async (t) => {
    const b = new CookieClient();
    const form = await b.follow(`${t.s.url}/oauth2/authorization/corp`);
    const html = await form.last.response.text();
    const abort = /href="([^"]*\/abort)"/.exec(html)?.[1];
    ok(abort, "the provider's form offers a cancel link");
    const back = await b.follow(new URL(abort, form.last.url), {}, (u) => u.origin === t.s.url);
    equal(back.next?.searchParams.get("error"), "access_denied");
    const res = await b.request(back.next!);
    equal(res.headers.get("location"), "/login?error=oidc");
    const rows = await t.audit("auth.login.oidc_error");
    equal((rows[0].details as Record<string, unknown>).reason, "provider_error");
  },
);

oidcTest(
  "with local accounts and a provider the login page shows form, divider and button; banners render",
  async (t) => {
    const b = new CookieClient();
    const page = await (await b.request(`${t.s.url}/login`)).text();
    match(page, /action="\/login"/);
    match(page, /class="divider"/);
    match(page, /Sign in with Corp SSO/);
    for (const banner of ["credentials", "locked", "inactive", "domain_not_allowed", "oidc"]) {
      const html = await (await b.request(`${t.s.url}/login?error=${banner}`)).text();
      match(html, /<p class="banner error" role="alert">[^<]+<\/p>/, banner);
    }
    const none = await (await b.request(`${t.s.url}/login?error=bogus`)).text();
    ok(!none.includes("banner error"));
  },
  { env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } },
);

Deno.test("an http issuer off loopback is accepted with the oidc.insecure_issuer warning", async () => {
  await withTestServer({
    env: {
      SERVICE_AUTH_BASE_URL: "https://svc.example",
      SERVICE_AUTH_OIDC_PROVIDERS_0_NAME: "corp",
      SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_ID: "c",
      SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_SECRET: "s",
      SERVICE_AUTH_OIDC_PROVIDERS_0_ISSUER_URI: "http://idp.internal:8080/realms/x",
      SERVICE_AUTH_OIDC_PROVIDERS_1_NAME: "local-idp",
      SERVICE_AUTH_OIDC_PROVIDERS_1_CLIENT_ID: "c",
      SERVICE_AUTH_OIDC_PROVIDERS_1_CLIENT_SECRET: "s",
      SERVICE_AUTH_OIDC_PROVIDERS_1_ISSUER_URI: "http://127.0.0.1:9/realms/x",
    },
  }, (s) => {
    const warned = s.logs.filter((l) => l.includes("oidc.insecure_issuer"));
    equal(warned.length, 1);
    match(warned[0], /"provider":"corp"/);
  });
});

oidcTest(
  "a provider subject already bound to another email is refused, not given a second row",
  async (t) => {
    t.account({ sub: "dee", email: "dee@corp.example" });
    deepEqual(await t.signIn(new CookieClient(), "dee"), { status: 302, location: "/" });
    t.account({ sub: "dee", email: "dee.new@corp.example" });
    deepEqual(await t.signIn(new CookieClient(), "dee"), {
      status: 302,
      location: "/login?error=oidc",
    });
    const rows = await t.audit("auth.login.oidc_error");
    equal((rows[0].details as Record<string, unknown>).reason, "subject_taken");
    const count = await t.s.runtime.db.first<{ n: number }>(
      "SELECT count(*) AS n FROM users WHERE provider = 'corp'",
    );
    equal(Number(count?.n), 1);
  },
);
