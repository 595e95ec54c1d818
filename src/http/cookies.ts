/**
 * The cookies (`svc_session`, `svc_csrf`, `svc_oauth2_authz`, and `svc_seen_result` for the
 * dashboard's first steps), with flags that follow the configured base-url.
 */
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "./context.ts";

export const SESSION_COOKIE = "svc_session";
export const CSRF_COOKIE = "svc_csrf";
export const AUTHZ_COOKIE = "svc_oauth2_authz";
export const SEEN_RESULT_COOKIE = "svc_seen_result";

/** Secure unless the base-url is explicitly http (unset keeps it). */
export function secureCookies(baseUrl: string | undefined): boolean {
  return !baseUrl?.startsWith("http://");
}

export function setSessionCookie(
  c: AppContext,
  token: string,
  maxAgeSeconds: number,
  secure: boolean,
) {
  setCookie(c, SESSION_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(c: AppContext, secure: boolean) {
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure, httpOnly: true, sameSite: "Lax" });
}

/** The CSRF token of this browsing session, minted (and set) when the browser has none. */
export function ensureCsrfToken(c: AppContext, secure: boolean): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32,128}$/.test(existing)) return existing;
  return issueCsrfToken(c, secure);
}

/**
 * A new CSRF token, set in place of any the browser holds. Sign-in calls it: a token that was
 * there before the session (planted by someone who can set cookies for the host) is worth
 * nothing to the session; from then on the token stays stable (docs/decisions.md#csrf-tokens).
 */
export function issueCsrfToken(c: AppContext, secure: boolean): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = btoa(String.fromCharCode(...bytes)).replace(/=+$/, "").replaceAll("+", "-")
    .replaceAll("/", "_");
  // Readable by scripts on purpose: htmx copies it into the SVC-CSRF-Token header.
  setCookie(c, CSRF_COOKIE, token, { path: "/", httpOnly: false, sameSite: "Lax", secure });
  return token;
}

/**
 * The OIDC authorization state between redirect and callback. SameSite Lax so the provider's
 * top-level redirect back carries it; never readable by scripts.
 */
export function setAuthzCookie(
  c: AppContext,
  value: string,
  maxAgeSeconds: number,
  secure: boolean,
) {
  setCookie(c, AUTHZ_COOKIE, value, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearAuthzCookie(c: AppContext, secure: boolean) {
  deleteCookie(c, AUTHZ_COOKIE, { path: "/", secure, httpOnly: true, sameSite: "Lax" });
}

/**
 * That this browser has opened a result page: the dashboard's first-steps list ticks "open its
 * chart" by it. No server record says a page was looked at, and this needs none: it holds no
 * identity, only `1`.
 */
export function markResultSeen(c: AppContext, secure: boolean) {
  if (getCookie(c, SEEN_RESULT_COOKIE) === "1") return;
  setCookie(c, SEEN_RESULT_COOKIE, "1", {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure,
    maxAge: 400 * 24 * 3600,
  });
}

export function resultSeen(c: AppContext): boolean {
  return getCookie(c, SEEN_RESULT_COOKIE) === "1";
}
