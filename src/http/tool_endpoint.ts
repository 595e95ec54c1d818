/**
 * `/mcp` in the HTTP app: every step of the request order has run (Origin and Host, the key, the
 * pinned workspace, the per-user budget) before this handler; it confines key kinds (step 11: an
 * endpoint-kind key is refused here as on every route not open to it; server keys never got this
 * far) and hands the call to the tool endpoint (src/mcp, joined in by src/runtime.ts), which
 * answers the protocol, including 405 for GET and DELETE.
 */
import type { Hono } from "hono";
import { AppError } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { AppEnv } from "./context.ts";
import { bodyWithin } from "./input.ts";
import type { Router } from "./routing.ts";

/** What src/mcp's endpoint offers, stated here so the two front ends import neither each other. */
export interface ToolEndpoint {
  fetch(request: Request, call: {
    actor: Principal;
    workspace: WorkspaceContext;
    membershipCount: number;
    correlationId: string;
    bodyWithin<T>(read: Promise<T>): Promise<T>;
  }): Promise<Response>;
  /** The agents' guide to the tools (`/skill.md`), naming `origin` as the service's. */
  skill(origin: string): Promise<string>;
}

/**
 * A 401 on `/mcp` challenges for a Bearer key (RFC 6750: `WWW-Authenticate`), as MCP clients
 * expect, and a missing credential is told how `/mcp` takes one: never a session cookie
 * (docs/mcp.md#calling-it). The code and status stay REST's.
 */
export function toolEndpointChallenge(error: AppError): AppError {
  if (error.status !== 401) return error;
  const invalid = error.code === "auth.api_key.missing" ? "" : ', error="invalid_token"';
  const message = error.code === "auth.api_key.missing"
    ? "No credential was presented: /mcp takes a user API key as `Authorization: Bearer " +
      "svck_…` (or the SVC-API-Key header); session cookies are never accepted here."
    : error.message;
  return new AppError(
    error.code,
    error.details as never,
    { ...error.headers, "WWW-Authenticate": `Bearer realm="mcp"${invalid}` },
    { message },
  );
}

export function mountToolEndpoint(
  app: Hono<AppEnv>,
  router: Router,
  endpoint: ToolEndpoint,
  origin: () => string,
): void {
  // Public: an agent reads it before it holds a key. Prose, not API: declared `html` like the
  // site's pages so it stays out of the API document.
  router.add({
    method: "get",
    path: "/skill.md",
    tag: "tools",
    summary: "A guide for agents to the tools at /mcp (Markdown), generated from the catalogue",
    access: "public",
    kind: "html",
  }, async (c) =>
    c.body(await endpoint.skill(origin()), 200, {
      "content-type": "text/markdown; charset=utf-8",
    }));

  app.all("/mcp", async (c) => {
    const actor = c.get("principal");
    // Step 9 let nothing unauthenticated through; sessions never authenticate /mcp (step 6).
    if (!actor || actor.authMethod !== "API_KEY") throw new AppError("auth.api_key.missing");
    if (actor.keyKind !== "user") {
      throw new AppError("endpoint.key_kind_refused", {
        reason: actor.keyKind === "server" ? "server_key_off_surface" : "endpoint_key_off_surface",
      });
    }
    const workspace = c.get("workspace");
    if (!workspace) throw new AppError("auth.key_workspace_inactive", {});
    return await endpoint.fetch(c.req.raw, {
      actor,
      workspace,
      membershipCount: c.get("membershipCount") ?? 0,
      correlationId: c.get("correlationId"),
      bodyWithin: (read) => bodyWithin(c, read),
    });
  });
}
