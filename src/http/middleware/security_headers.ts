/**
 * Security headers on every response (docs/decisions.md#security-headers); HTML also gets a CSP,
 * and HSTS is sent only when the external base-url is https.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { EDITOR_IMPORT_MAP_HASH } from "../../../ui/static_files.ts";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  // The one inline script allowed is the editor pages' import map, by its hash.
  `script-src 'self' ${EDITOR_IMPORT_MAP_HASH}`,
  // No inline style at all, attribute or element. The code editors style themselves through
  // constructed stylesheets in their shadow roots and position things through the CSSOM
  // (`element.style`), neither of which this refuses.
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function securityHeaders(baseUrl: string | undefined): MiddlewareHandler<AppEnv> {
  const hsts = baseUrl?.startsWith("https://");
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "strict-origin-when-cross-origin");
    if (hsts) h.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
    if (h.get("content-type")?.startsWith("text/html")) {
      h.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    }
  };
}
