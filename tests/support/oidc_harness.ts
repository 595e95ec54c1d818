/**
 * The OIDC test set-up: a real OpenID Provider (`oidc-provider`) on a loopback port and the
 * service beside it, configured with one provider named `corp`, plus the redirect dance driven by a
 * cookie-keeping client.
 */
import { ok } from "node:assert/strict";
import type { NewUserNotice } from "../../src/identity/oidc_login.ts";
import { CookieClient } from "./cookie_client.ts";
import { startTestProvider, type TestAccount, type TestProvider } from "./oidc_provider.ts";
import { json, onFreePort, startTestServer, type TestServer } from "./harness.ts";
import type { StoreKind } from "./stores.ts";

export interface Setup {
  s: TestServer;
  op: TestProvider;
  notices: NewUserNotice[];
  account(a: TestAccount): void;
  /** Drives the dance up to (not into) the callback; returns the callback URL. */
  toCallback(b: CookieClient, sub: string): Promise<URL>;
  /** The whole dance; returns the callback's answer (status and Location). */
  signIn(b: CookieClient, sub: string): Promise<{ status: number; location: string | null }>;
  audit(event: string): Promise<Record<string, unknown>[]>;
}

export async function withOidc(
  fn: (t: Setup) => Promise<void>,
  options: { env?: Record<string, string>; store?: StoreKind; issuer?: string } = {},
): Promise<void> {
  const notices: NewUserNotice[] = [];
  // The provider must know the service's callback URL, so the port is chosen before either listens.
  const { op, s } = await onFreePort(async (port) => {
    const base = `http://127.0.0.1:${port}`;
    const op = await startTestProvider({ redirectUris: [`${base}/login/oauth2/code/corp`] });
    try {
      const s = await startTestServer({
        port,
        store: options.store,
        runtime: { onNewUser: (n) => void notices.push(n) },
        env: {
          SERVICE_AUTH_BASE_URL: base,
          SERVICE_AUTH_OIDC_PROVIDERS_0_NAME: "corp",
          SERVICE_AUTH_OIDC_PROVIDERS_0_DISPLAY_NAME: "Corp SSO",
          SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_ID: op.clientId,
          SERVICE_AUTH_OIDC_PROVIDERS_0_CLIENT_SECRET: op.clientSecret,
          SERVICE_AUTH_OIDC_PROVIDERS_0_ISSUER_URI: options.issuer ?? op.issuer,
          ...options.env,
        },
      });
      return { op, s };
    } catch (error) {
      await op.close();
      throw error;
    }
  });
  try {
    const server = s;
    const isCallback = (u: URL) =>
      u.origin === server.url && u.pathname.startsWith("/login/oauth2/code/");
    const toCallback = async (b: CookieClient, sub: string) => {
      const form = await b.follow(`${server.url}/oauth2/authorization/corp`, {}, isCallback);
      if (form.next) return form.next; // the provider remembered the login
      const html = await form.last.response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      ok(action, `expected the provider's login form, got ${form.last.url}: ${html.slice(0, 200)}`);
      const done = await b.follow(new URL(action, form.last.url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ prompt: "login", login: sub, password: "any" }),
      }, isCallback);
      ok(done.next, `expected a redirect to the callback, got ${done.last.response.status}`);
      return done.next;
    };
    await fn({
      s: server,
      op,
      notices,
      account: (a) => op.accounts.set(a.sub, a),
      toCallback,
      async signIn(b, sub) {
        const res = await b.request(await toCallback(b, sub));
        await res.body?.cancel();
        return { status: res.status, location: res.headers.get("location") };
      },
      async audit(event) {
        const rows = await server.runtime.db.query<Record<string, unknown>>(
          "SELECT * FROM audit_log WHERE event = $1 ORDER BY id",
          [event],
        );
        return rows.map((r) => ({ ...r, details: JSON.parse(String(r.details)) }));
      },
    });
  } finally {
    await s.close();
    await op.close();
  }
}

export async function me(s: TestServer, b: CookieClient) {
  return await json(
    await b.request(`${s.url}/api/v1/auth/me`, { headers: { accept: "application/json" } }),
  );
}
