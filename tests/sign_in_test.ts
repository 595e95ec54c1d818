/**
 * Browser sign-in over HTTP: the login page and form, identical failures, lockout banner, the
 * session cookie's flags, logout, CSRF by credential, the forced password change gate with its
 * three answers, bad session tokens, and the login rate limit.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { SignJWT } from "jose";
import {
  createUser,
  seedRoles,
  sessionHeaders,
  TEST_PASSWORD,
  userKey,
} from "./support/access_fixtures.ts";
import { json, type TestServer, withTestServer } from "./support/harness.ts";
import { forEachStoreKind, type StoreKind } from "./support/stores.ts";
import { insertUser } from "../src/store/row_fixtures.ts";

async function withServer(
  store: StoreKind,
  fn: (s: TestServer) => Promise<void>,
  env: Record<string, string> = {},
) {
  await withTestServer(
    { store, env: { SERVICE_AUTH_LOCAL_ENABLED: "true", ...env } },
    async (s) => {
      await fn(s);
    },
  );
}

/** Registers `name` once per store, each with a server that has local sign-in on (and `env`). */
function serverTest(
  name: string,
  fn: (s: TestServer) => Promise<void>,
  env: Record<string, string> = {},
): void {
  forEachStoreKind(name, (store) => withServer(store, fn, env));
}

/** A browser: keeps cookies, follows nothing, sends forms with the CSRF token it was given. */
class Browser {
  cookies = new Map<string, string>();
  constructor(readonly s: TestServer) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) {
      headers.set(
        "cookie",
        [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      );
    }
    if (!headers.has("accept")) headers.set("accept", "text/html");
    const res = await this.s.fetch(path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const [k, v] = pair.split("=");
      if (attrs.some((a) => /max-age=0/i.test(a)) || v === "") this.cookies.delete(k.trim());
      else this.cookies.set(k.trim(), v);
    }
    return res;
  }

  async form(path: string, fields: Record<string, string>, withCsrf = true): Promise<Response> {
    const body = new URLSearchParams(fields);
    if (withCsrf) body.set("_csrf", this.cookies.get("svc_csrf") ?? "");
    return await this.request(path, {
      method: "POST",
      body,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
  }

  async login(email: string, password: string): Promise<Response> {
    await (await this.request("/login")).body?.cancel();
    return await this.form("/login", { email, password });
  }
}

serverTest(
  "GET /login shows the form and mints the CSRF cookie; unauthenticated pages redirect there",
  async (s) => {
    const b = new Browser(s);
    const page = await b.request("/login");
    const html = await page.text();
    match(html, /<form method="post" action="\/login"/);
    ok(b.cookies.get("svc_csrf"));
    ok(html.includes(`value="${b.cookies.get("svc_csrf")}"`));
    const dash = await b.request("/dashboard");
    equal(dash.status, 302);
    equal(dash.headers.get("location"), "/login");
    const api = await s.fetch("/api/v1/auth/me");
    equal(api.status, 401);
    equal((await json(api)).error.code, "auth.api_key.missing");
  },
);

serverTest(
  "POST /login: success sets an HttpOnly Lax session cookie and lands on /; the dashboard works",
  async (s) => {
    const user = await createUser(s.runtime, "kim@example.com");
    const b = new Browser(s);
    const res = await b.login("KIM@example.com", TEST_PASSWORD);
    equal(res.status, 302);
    equal(res.headers.get("location"), "/");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_session="))!;
    match(cookie, /HttpOnly/);
    match(cookie, /SameSite=Lax/);
    match(cookie, /Max-Age=28800/);
    match(cookie, /Secure/, "Secure stays on while base-url is unset");
    const me = await b.request("/api/v1/auth/me", { headers: { accept: "application/json" } });
    const body = await json(me);
    equal(body.data.user_id, user.id);
    equal(body.data.auth_method, "OIDC");
    equal((await b.request("/dashboard")).status, 200);
  },
);

serverTest(
  "unknown email, OIDC-only account and wrong password get one identical answer",
  async (s) => {
    await createUser(s.runtime, "kim@example.com");
    await insertUser(s.runtime.db, "sso@example.com", {
      display_name: "S",
      provider: "corp",
      provider_subject: "sub",
    });
    const answers = [];
    for (
      const [email, password] of [["nobody@example.com", "whatever pw"], [
        "sso@example.com",
        "whatever pw",
      ], ["kim@example.com", "wrong password"]]
    ) {
      const res = await new Browser(s).login(email, password);
      answers.push([
        res.status,
        res.headers.get("location"),
        res.headers.getSetCookie().some((c) => c.startsWith("svc_session=")),
      ]);
    }
    deepEqual(answers, Array(3).fill([302, "/login?error=credentials", false]));
  },
);

serverTest(
  "lockout shows the locked banner, even for the right password",
  async (s) => {
    await createUser(s.runtime, "kim@example.com");
    const b = new Browser(s);
    for (let i = 0; i < 2; i++) {
      equal(
        (await b.login("kim@example.com", "wrong")).headers.get("location"),
        "/login?error=credentials",
      );
    }
    equal(
      (await b.login("kim@example.com", "wrong")).headers.get("location"),
      "/login?error=locked",
    );
    equal(
      (await b.login("kim@example.com", TEST_PASSWORD)).headers.get("location"),
      "/login?error=locked",
    );
    const banner = await (await b.request("/login?error=locked")).text();
    match(banner, /Too many failed attempts/);
  },
  { SERVICE_AUTH_LOCAL_LOCKOUT_MAX_FAILURES: "3" },
);

serverTest(
  "a deactivated user with the right password sees the inactive banner",
  async (s) => {
    const u = await createUser(s.runtime, "kim@example.com");
    await s.runtime.db.execute("UPDATE users SET is_active = $1 WHERE id = $2", [false, u.id]);
    equal(
      (await new Browser(s).login("kim@example.com", TEST_PASSWORD)).headers.get("location"),
      "/login?error=inactive",
    );
  },
);

serverTest(
  "CSRF: a cookie-authenticated write needs the token (missing, mismatch); a key is exempt",
  async (s) => {
    const f = await seedRoles(s.runtime);
    const headers = await sessionHeaders(s.runtime, f.users.super_admin);
    const body = JSON.stringify({ name: "beta" });
    const post = (h: Record<string, string>) =>
      s.fetch("/api/v1/workspaces", {
        method: "POST",
        headers: { "content-type": "application/json", ...h },
        body,
      });
    const missing = await post({ cookie: headers.cookie });
    equal(missing.status, 403);
    deepEqual((await json(missing)).error.details, { reason: "missing" });
    const mismatch = await post({ cookie: headers.cookie, "SVC-CSRF-Token": "wrong" });
    equal(mismatch.status, 403);
    const error = (await json(mismatch)).error;
    equal(error.code, "auth.csrf.invalid");
    deepEqual(error.details, { reason: "mismatch" });
    equal((await post(headers)).status, 201);
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    const withKey = await s.fetch("/api/v1/auth/api-keys", {
      method: "POST",
      headers: { "content-type": "application/json", "SVC-API-Key": key },
      body: JSON.stringify({ name: "from a key", scopes: ["read"] }),
    });
    equal(withKey.status, 201);
  },
);

serverTest(
  "logout clears the cookie, audits auth.logout and sends the browser to /login",
  async (s) => {
    await createUser(s.runtime, "kim@example.com");
    const b = new Browser(s);
    await b.login("kim@example.com", TEST_PASSWORD);
    ok(b.cookies.has("svc_session"));
    const out = await b.form("/logout", {});
    equal(out.status, 302);
    equal(out.headers.get("location"), "/login");
    ok(!b.cookies.has("svc_session"));
    const row = await s.runtime.db.first(
      "SELECT event FROM audit_log WHERE event = 'auth.logout'",
    );
    ok(row);
  },
);

serverTest(
  "forced password change: 302 for browsers, HX-Redirect for htmx, 403 for the API; then released",
  async (s) => {
    await createUser(s.runtime, "kim@example.com", { mustChange: true });
    const b = new Browser(s);
    await b.login("kim@example.com", TEST_PASSWORD);
    const page = await b.request("/dashboard");
    equal(page.status, 302);
    equal(page.headers.get("location"), "/settings/password");
    const htmx = await b.request("/dashboard", { headers: { "HX-Request": "true" } });
    equal(htmx.headers.get("HX-Redirect"), "/settings/password");
    const api = await b.request("/api/v1/auth/me", { headers: { accept: "application/json" } });
    equal(api.status, 403);
    equal((await json(api)).error.code, "auth.password.change_required");
    equal((await b.request("/settings/password")).status, 200);
    equal((await b.request("/health", { headers: { accept: "application/json" } })).status, 200);

    const short = await b.form("/partials/account/password", {
      current_password: TEST_PASSWORD,
      new_password: "short",
    });
    equal(short.status, 303);
    match(short.headers.get("location")!, /^\/settings\/password\?error=/);
    const done = await b.form("/partials/account/password", {
      current_password: TEST_PASSWORD,
      new_password: "my own new password",
    }, true);
    equal(done.status, 302);
    equal(done.headers.get("location"), "/dashboard");
    equal((await b.request("/dashboard")).status, 200);
  },
);

serverTest(
  "bad session tokens: expired, forged, truncated, alg none — 401 with the code, cookie cleared",
  async (s) => {
    const u = await createUser(s.runtime, "kim@example.com");
    const good = await s.runtime.sessions.issue(
      { id: u.id, email: u.email, displayName: "K" },
      "pwd",
    );
    const expired = await new SignJWT({ email: u.email }).setProtectedHeader({ alg: "HS256" })
      .setSubject(u.id)
      .setIssuer("pipeline-service").setIssuedAt(1000).setExpirationTime(2000).sign(
        s.runtime.secrets.jwtSecret,
      );
    const none = `${btoa(JSON.stringify({ alg: "none" }))}.${
      btoa(JSON.stringify({ sub: u.id, email: u.email, iss: "pipeline-service", exp: 9e9 }))
    }.`;
    const cases: [string, string][] = [
      [expired, "auth.session.expired"],
      [good.slice(0, -4), "auth.session.invalid"],
      [none.replaceAll("=", ""), "auth.session.invalid"],
      ["x".repeat(5000), "auth.session.invalid"],
    ];
    for (const [token, code] of cases) {
      const res = await s.fetch("/api/v1/auth/me", {
        headers: { cookie: `svc_session=${token}` },
      });
      equal(res.status, 401, code);
      equal((await json(res)).error.code, code);
      ok(res.headers.getSetCookie().some((c) => c.startsWith("svc_session=;")), "cookie cleared");
    }
    await s.runtime.db.execute("UPDATE users SET is_active = $1 WHERE id = $2", [false, u.id]);
    s.runtime.directory.forgetUser(u.id);
    const inactive = await s.fetch("/api/v1/auth/me", {
      headers: { cookie: `svc_session=${good}` },
    });
    equal(inactive.status, 401);
  },
);

serverTest(
  "login rate limit: per client per minute, then 429 rate_limit.exceeded with Retry-After",
  async (s) => {
    const b = new Browser(s);
    for (let i = 0; i < 3; i++) await (await b.request("/login")).body?.cancel();
    const limited = await b.request("/login", { headers: { accept: "application/json" } });
    equal(limited.status, 429);
    ok(Number(limited.headers.get("Retry-After")) >= 1);
    equal((await json(limited)).error.code, "rate_limit.exceeded");
    equal((await s.fetch("/health")).status, 200, "other paths are not limited");
  },
  { SERVICE_AUTH_RATE_LIMIT_LOGIN_PER_MINUTE: "3" },
);

serverTest(
  "local login lands like OIDC: pending invitations go live, else a demo viewer join",
  async (s) => {
    const root = await createUser(s.runtime, "root@example.com", { isAdmin: true });
    const kim = await createUser(s.runtime, "kim@example.com");
    await s.runtime.workspaces.create(root.principal, { name: "acme" });
    // An invitation for an existing user exists only when it outlived a deactivated workspace.
    await s.runtime.db.execute(
      `INSERT INTO invitations (workspace_id, email, author, promoter, admin, invited_by, invited_at)
       VALUES ($1, 'kim@example.com', $2, $3, $3, $4, $5)`,
      [
        (await s.runtime.workspaces.get("acme"))!.id,
        true,
        false,
        root.id,
        new Date().toISOString(),
      ],
    );
    const b = new Browser(s);
    equal((await b.login("kim@example.com", TEST_PASSWORD)).headers.get("location"), "/");
    const body = await json(
      await b.request("/api/v1/auth/me", { headers: { accept: "application/json" } }),
    );
    equal(body.data.workspace, "acme");
    ok(
      await s.runtime.db.first(
        "SELECT 1 AS x FROM audit_log WHERE event = 'workspace.invitation_materialised' AND user_id = $1",
        [kim.id],
      ),
    );
    const lee = await createUser(s.runtime, "lee@example.com");
    const b2 = new Browser(s);
    await b2.login("lee@example.com", TEST_PASSWORD);
    const lees = await json(
      await b2.request("/api/v1/auth/me", { headers: { accept: "application/json" } }),
    );
    equal(lees.data.workspace, "demo");
    const joined = await s.runtime.db.first<{ details: string }>(
      "SELECT details FROM audit_log WHERE event = 'workspace.member_added' AND user_id = $1",
      [lee.id],
    );
    equal(JSON.parse(joined!.details).reason, "first_login_demo_viewer");
  },
);
