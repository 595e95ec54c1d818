/**
 * `SVC-Correlation-Id` in both directions: an inbound well-formed UUID is kept, anything else is
 * replaced by a fresh one. The id rides in AsyncLocalStorage so every log line of the request
 * carries it.
 */
import type { MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import { clientIp } from "../client_ip.ts";
import { isUuid, newId } from "../../lib/ids.ts";
import { requestContext } from "../../lib/log.ts";
import type { AppEnv } from "../context.ts";

export const CORRELATION_HEADER = "SVC-Correlation-Id";

export function correlation(trustedProxies: readonly string[] = []): MiddlewareHandler<AppEnv> {
  const trusted = new Set(trustedProxies);
  return async (c, next) => {
    const inbound = c.req.header(CORRELATION_HEADER);
    const id = isUuid(inbound) ? inbound.toLowerCase() : newId();
    c.set("correlationId", id);
    let peer: string | undefined;
    try {
      peer = getConnInfo(c).remote.address;
    } catch {
      peer = undefined; // app.request() in tests has no socket
    }
    const ip = clientIp(peer, c.req.header("x-forwarded-for"), trusted);
    c.set("clientIp", ip);
    const userAgent = c.req.header("user-agent");
    await requestContext.run({ correlationId: id, sourceIp: ip, userAgent }, next);
    c.res.headers.set(CORRELATION_HEADER, id);
  };
}
