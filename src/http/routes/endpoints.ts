/**
 * Published endpoints over HTTP (docs/endpoints.md). Management under `/api/v1/endpoints` and
 * `/api/v1/endpoints/bindings`, addressed by `?path=` (a pattern never travels as a path
 * segment); serving `GET /api/x/**` and its OpenAPI document. Thin: the endpoints domain decides;
 * these read headers and query pairs and pick the response form.
 *
 * Serving answers raw JSON (the `data_ready` payload verbatim, or the 202 pointer) and the error
 * envelope for refusals. The route is declared `public` because an endpoint-kind key has no
 * scopes: the binding walk is its gate. A user key is still judged on the matrix row
 * (`endpoints.serve`, its issuer's role included) before the domain's own checks.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { acceptedView, bindingView, endpointView, type ServeResult } from "../../endpoints/mod.ts";
import { dataReadyView, payloadJson } from "../../executions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import type { Services } from "../../services.ts";
import type { AppContext } from "../context.ts";
import { admits } from "../accept.ts";
import { ok, paged, pagedData, SCHEMA_VERSION } from "../envelope.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "identity" | "publishing" | "platform">;

const PREFIX = "/api/x";
const pathQuery = z.object({ path: z.string().min(1).max(300) });
const MANAGE_ERRORS = [
  "endpoint.not_found",
  "endpoint.validation.path_invalid",
] as const;

const ctx = (actor: Principal, workspace: WorkspaceContext) => ({
  actor,
  workspaceId: workspace.id,
});

/** 406 unless `Accept` admits JSON (absent admits anything). */
function requireJson(c: AppContext): void {
  if (!admits(c.req.header("accept"), "application/json")) {
    throw new AppError("request.not_acceptable", { produces: "application/json" });
  }
}

export function registerRoutes(router: Router, deps: Deps): void {
  const { endpoints, endpointServer: server } = deps.publishing;

  router.add(
    {
      method: "post",
      path: "/api/v1/endpoints",
      tag: "endpoints",
      summary: "Publish a released, side-effect-free pipeline under a path pattern",
      access: "endpoints.manage",
      status: 201,
      body: z.unknown(),
      response: endpointView,
      errors: [
        ...MANAGE_ERRORS,
        "pipeline.not_found",
        "endpoint.pipeline_not_released",
        "endpoint.pipeline_not_readonly",
        "endpoint.path_variable_unknown",
        "endpoint.path_conflict",
      ],
    },
    async (c, { actor, workspace, body }) =>
      ok(c, await endpoints.publish(ctx(actor, workspace), body), 201),
  );

  router.add({
    method: "get",
    path: "/api/v1/endpoints",
    tag: "endpoints",
    summary: "Read one endpoint (?path=) or list the workspace's, paged",
    access: "endpoints.manage",
    query: z.object({ path: z.string().min(1).max(300).optional() }),
    page: true,
    response: z.union([endpointView, pagedData(endpointView)]),
    errors: [...MANAGE_ERRORS],
  }, async (c, { actor, workspace, query, page }) => {
    if (query.path !== undefined) {
      return ok(c, await endpoints.get(ctx(actor, workspace), query.path));
    }
    const { items, total } = await endpoints.list(ctx(actor, workspace), page);
    return paged(c, items, { ...page, total });
  });

  router.add(
    {
      method: "put",
      path: "/api/v1/endpoints",
      tag: "endpoints",
      summary: "Enable or disable an endpoint (?path=, body {enabled})",
      access: "endpoints.manage",
      query: pathQuery,
      body: z.unknown(),
      response: endpointView,
      errors: [...MANAGE_ERRORS],
    },
    async (c, { actor, workspace, query, body }) =>
      ok(c, await endpoints.setEnabled(ctx(actor, workspace), query.path, body)),
  );

  router.add({
    method: "delete",
    path: "/api/v1/endpoints",
    tag: "endpoints",
    summary: "Unpublish an endpoint (?path=)",
    access: "endpoints.manage",
    query: pathQuery,
    status: 204,
    errors: [...MANAGE_ERRORS],
  }, async (c, { actor, workspace, query }) => {
    await endpoints.unpublish(ctx(actor, workspace), query.path);
    return c.body(null, 204);
  });

  router.add({
    method: "post",
    path: "/api/v1/endpoints/bindings",
    tag: "endpoints",
    summary: "Bind one of your endpoint-kind keys, by name, to a node of the endpoint tree",
    access: "endpoints.manage",
    status: 201,
    body: z.unknown(),
    response: bindingView,
    alsoAnswers: { 200: bindingView },
    errors: [
      "endpoint.validation.path_invalid",
      "endpoint.key_not_found",
      "endpoint.key_name_ambiguous",
      "endpoint.key_kind_refused",
    ],
  }, async (c, { actor, workspace, body }) => {
    const bound = await endpoints.bind(ctx(actor, workspace), body);
    return ok(c, bound, bound.already_bound ? 200 : 201);
  });

  router.add({
    method: "delete",
    path: "/api/v1/endpoints/bindings",
    tag: "endpoints",
    summary: "Unbind one of your endpoint-kind keys from a node (?path=&key_name=)",
    access: "endpoints.manage",
    query: z.object({ path: z.string().min(1).max(300), key_name: z.string().min(1).max(200) }),
    status: 204,
    errors: [
      "endpoint.validation.path_invalid",
      "endpoint.key_not_found",
      "endpoint.binding_not_found",
    ],
  }, async (c, { actor, workspace, query }) => {
    await endpoints.unbind(ctx(actor, workspace), query);
    return c.body(null, 204);
  });

  // Serving and the document: a key is required whatever its kind (a session is 401).
  const keyOf = async (c: AppContext): Promise<Principal> => {
    const principal = c.get("principal");
    if (principal && principal.authMethod !== "API_KEY") {
      throw sessionRefused(deps.platform.origin());
    }
    if (!principal) throw new AppError("auth.api_key.missing");
    if (principal.keyKind === "user") {
      await deps.identity.access.authorize({
        operation: "endpoints.serve",
        principal,
        workspace: c.get("workspace"),
        membershipCount: c.get("membershipCount") ?? 0,
      }, { path: c.req.path, method: c.req.method });
    }
    return principal;
  };

  router.add({
    method: "get",
    path: `${PREFIX}/openapi.json`,
    tag: "published endpoints",
    summary: "OpenAPI document of the endpoints this key may call",
    access: "public",
    endpointKeys: true,
    kind: "raw",
    response: z.record(z.string(), z.unknown()).describe("an OpenAPI 3.1 document"),
  }, async (c) => {
    requireJson(c);
    return c.json(await server.describe(await keyOf(c), deps.platform.origin()));
  });

  router.add({
    method: "get",
    path: `${PREFIX}/*`,
    tag: "published endpoints",
    summary: "Serve a published endpoint",
    access: "public",
    endpointKeys: true,
    kind: "raw",
    response: dataReadyView,
    alsoAnswers: { 202: acceptedView },
  }, async (c) => {
    requireJson(c);
    const principal = await keyOf(c);
    const url = new URL(c.req.url);
    const result = await server.serve({
      principal,
      path: url.pathname.slice(PREFIX.length),
      query: [...url.searchParams.entries()],
      ttlHeader: c.req.header("svc-result-ttl-seconds"),
      pageRowsHeader: c.req.header("svc-result-page-rows"),
      correlationId: c.get("correlationId"),
    });
    return served(c, result);
  });
  // Every other method under /api/x is 405 `Allow: GET` before this (middleware/get_only.ts).
}

/**
 * A browser session on `/api/x`: the 401 `auth.api_key.missing`
 * (docs/endpoints.md#a-browser-at-apix), in the error envelope like every 4xx, but its texts say
 * what to do instead of "send a session cookie", and `details.keys_url` links the page that issues
 * a key.
 */
export function sessionRefused(origin: string): AppError {
  const keys = `${origin}/settings/api-keys`;
  return new AppError("auth.api_key.missing", { reason: "session", keys_url: keys }, {}, {
    message: "A browser session cannot call a published endpoint: send an API key in the " +
      `SVC-API-Key header. Create one at ${keys}.`,
    userMessage: `Published endpoints are called with an API key, not a signed-in browser. ` +
      `Create a key at ${keys} and send it in the SVC-API-Key header.`,
  });
}

function served(c: AppContext, result: ServeResult): Response {
  const t0 = performance.now();
  // A 200's body is the data_ready payload, whose text the journal already made to store it.
  const body = result.status === 200
    ? payloadJson(result.body)
    : result.status === 202
    ? JSON.stringify(result.body)
    : JSON.stringify({
      schema_version: SCHEMA_VERSION,
      correlation_id: c.get("correlationId"),
      error: result.error,
    });
  const serialise = performance.now() - t0;
  const ms = (n: number) => n.toFixed(1);
  return c.body(body, result.status, {
    "Content-Type": "application/json",
    "SVC-Execution-Id": result.executionId,
    "SVC-Correlation-Id": c.get("correlationId"),
    "Cache-Control": "no-store",
    "Server-Timing": `queue;dur=${ms(result.timings.queue_ms)}, ` +
      `execute;dur=${ms(result.timings.execute_ms)}, serialise;dur=${ms(serialise)}`,
    // An outage ended the run (src/endpoints/serve.ts): as every 503 service.unavailable.
    ...(result.status === 503 ? { "Retry-After": "1" } : {}),
  });
}
