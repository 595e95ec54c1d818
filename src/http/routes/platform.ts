/** Public platform routes: health, readiness, build info and the API document (docs/http.md). */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { buildInfoView, healthView, readyView } from "../../health/mod.ts";
import type { Services } from "../../services.ts";
import { ok } from "../envelope.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "platform">;

export function registerRoutes(router: Router, deps: Deps): void {
  router.add({
    method: "get",
    path: "/health",
    tag: "platform",
    access: "public",
    summary: "Component health from live probes; status is DOWN when any component is DOWN",
    response: healthView,
  }, async (c) => {
    const report = await deps.platform.health.check();
    return ok(c, {
      status: report.status,
      version: deps.platform.buildInfo.version,
      components: report.components,
    });
  });

  router.add({
    method: "get",
    path: "/ready",
    tag: "platform",
    access: "public",
    summary: "200 when this instance can take traffic, else 503 service.unavailable",
    response: readyView,
    errors: ["service.unavailable"],
  }, async (c) => {
    const readiness = await deps.platform.health.readiness();
    if (!readiness.ready) {
      throw new AppError("service.unavailable", {
        reason: readiness.reason,
        components: readiness.report.components,
      });
    }
    return ok(c, { ready: true as const });
  });

  router.add({
    method: "get",
    path: "/info",
    tag: "platform",
    access: "public",
    summary: "Version, build time and commit of this build",
    response: buildInfoView,
  }, (c) => ok(c, deps.platform.buildInfo));

  let document: Record<string, unknown> | undefined;
  router.add({
    method: "get",
    path: "/openapi.json",
    tag: "platform",
    access: "public",
    summary: "This document (OpenAPI 3.1), generated from the schemas that validate requests",
    kind: "raw",
    response: z.record(z.string(), z.unknown()).describe("an OpenAPI 3.1 document"),
  }, (c) => {
    document ??= router.openApi({
      title: "Pipeline Service",
      version: deps.platform.buildInfo.version,
      serverUrl: deps.platform.origin(),
    });
    return c.json(document);
  });
}
