/**
 * The tool endpoint's Origin and Host checks (docs/decisions.md#keys-only-never-cookies), which the
 * MCP SDK leaves to its host. Right after CORS, before any credential is read: a browser page of
 * another origin (or a DNS-rebound name) gets nothing from `/mcp`, not even a credential error.
 *
 * - A request carrying `Origin` is served only when it equals the origin of the configured
 *   base-url, or, with none configured, the origin the request was addressed to; otherwise 403
 *   `request.origin_forbidden`. No `Origin` (a non-browser client) is served.
 * - With no base-url and a loopback listener (the local install), `Host` must name a loopback
 *   host, else 403 `request.host_forbidden`: a page on a rebound name reaches the listener with
 *   its own name in `Host`. Behind a configured base-url, proxies own `Host`; the Origin check is
 *   the guard.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The one path the checks guard; the pipeline registers the step there only. */
export const TOOL_PATH = "/mcp";

export function toolOrigin(
  baseUrl: string | undefined,
  listenHost: string,
): MiddlewareHandler<AppEnv> {
  const configured = baseUrl ? new URL(baseUrl).origin : undefined;
  const guardHost = !baseUrl && LOOPBACK.has(listenHost);
  return async (c, next) => {
    if (c.req.path !== TOOL_PATH) return await next();
    const addressed = new URL(c.req.url);
    if (guardHost && !LOOPBACK.has(addressed.hostname)) {
      throw new AppError("request.host_forbidden", {
        host: (c.req.header("host") ?? "").slice(0, 200),
        path: c.req.path,
      });
    }
    const origin = c.req.header("origin");
    const allowed = configured ?? addressed.origin;
    if (origin !== undefined && origin !== allowed) {
      throw new AppError("request.origin_forbidden", {
        origin: origin.slice(0, 200),
        path: c.req.path,
        allowed,
      });
    }
    await next();
  };
}
