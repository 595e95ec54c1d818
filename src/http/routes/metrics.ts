/**
 * `GET /metrics`: the Prometheus text format (docs/operations.md "Metrics and traces"). Registered
 * only when `service.metrics.enabled`; otherwise the path answers 404 like any unknown one. A
 * public path to the request order (no session, no API key), guarded here by its own bearer
 * token, compared in constant time: a scraper holds that token and nothing else.
 */
import { AppError } from "../../errors/mod.ts";
import type { Services } from "../../services.ts";
import { BearerCheck } from "../../telemetry/mod.ts";
import type { Router } from "../routing.ts";

export function registerRoutes(
  router: Router,
  deps: Pick<Services, "platform" | "settings">,
): void {
  const { metrics } = deps.platform;
  const token = deps.settings.metricsToken;
  // The configuration refuses to start with metrics on and no token (refusals.ts).
  if (!metrics || token === undefined) return;
  const bearer = new BearerCheck(token);
  router.add({
    method: "get",
    path: "/metrics",
    tag: "platform",
    access: "public",
    summary: "Metrics in the Prometheus text format, for a scraper holding service.metrics.token",
    // Not part of the API: kept out of the API document like the pages.
    kind: "html",
    errors: ["auth.metrics.token_invalid"],
  }, async (c) => {
    const refused = bearer.judge(c.req.header("authorization"));
    if (refused) {
      throw new AppError("auth.metrics.token_invalid", { reason: refused }, {
        "WWW-Authenticate": 'Bearer realm="metrics"',
      });
    }
    return c.body(await metrics.scrape(), 200, {
      "content-type": metrics.contentType,
      "cache-control": "no-store",
    });
  });
}
