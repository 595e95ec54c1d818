/**
 * Step 2, CSRF double-submit (docs/decisions.md#csrf-tokens): a state-changing request must send
 * the `svc_csrf` cookie's value in `SVC-CSRF-Token` or the `_csrf` form field. Exemption follows
 * the credential, never the path: a request carrying an API key (or the promotion key) is exempt.
 * The token is required when the ambient credential, the session cookie, is present, and on every
 * HTML form post (the shape a cross-site page can send without a preflight, login included).
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";
import { CSRF_COOKIE, SESSION_COOKIE } from "../cookies.ts";
import { bodyWithin } from "../input.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function csrf(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (SAFE.has(c.req.method)) return await next();
    const bearerOnMcp = c.req.path === "/mcp" &&
      /^Bearer\s/i.test(c.req.header("authorization") ?? "");
    if (c.req.header("svc-api-key") || c.req.header("svc-promotion-key") || bearerOnMcp) {
      return await next();
    }

    const isForm = /^(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)/i
      .test(c.req.header("content-type") ?? "");
    if (!getCookie(c, SESSION_COOKIE) && !isForm) return await next();

    const cookie = getCookie(c, CSRF_COOKIE);
    let sent = c.req.header("svc-csrf-token");
    if (!sent && isForm) {
      const form = await bodyWithin(c, c.req.parseBody()).catch((e) => {
        if (e instanceof AppError && e.code === "request.body_timeout") throw e;
        return {} as Record<string, unknown>;
      });
      sent = typeof form._csrf === "string" ? form._csrf : undefined;
    }
    if (!cookie || !sent) throw new AppError("auth.csrf.invalid", { reason: "missing" });
    if (!timingSafeEqual(cookie, sent)) {
      throw new AppError("auth.csrf.invalid", { reason: "mismatch" });
    }
    await next();
  };
}
