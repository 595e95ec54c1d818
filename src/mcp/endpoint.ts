/**
 * The tool endpoint's transport: the official SDK's `createMcpHandler` serving both revisions
 * (DECISIONS.md "MCP revisions") — 2026-07-28 stateless with `server/discover`, and 2025-11-25
 * (`initialize`) through the SDK's stateless legacy leg, which needs no session ids and answers
 * GET and DELETE 405. The SDK checks `MCP-Protocol-Version` (unsupported: 400) and the
 * `Mcp-Method` / `Mcp-Name` headers against the body; credentials, Origin, Host, rate limits and
 * key kinds are the HTTP front end's steps, run before a request gets here.
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Services } from "../services.ts";
import type { McpCall } from "./call.ts";
import { CATALOGUE } from "./catalogue.ts";
import { buildServer } from "./server.ts";
import { skillMarkdown } from "./skill.ts";
import type { ToolDef } from "./tool.ts";

export interface McpEndpoint {
  /** Serves one POST /mcp (or the 405 of another method) for an authenticated call. */
  fetch(request: Request, call: McpCall): Promise<Response>;
  /** `/skill.md`: the agents' guide to these tools, naming `origin` as the service's. */
  skill(origin: string): string;
  close(): Promise<void>;
}

export function createMcpEndpoint(
  services: Services,
  tools: readonly ToolDef[] = CATALOGUE,
): McpEndpoint {
  const version = services.buildInfo.version;
  const handler = createMcpHandler(
    (ctx) => buildServer(services, tools, ctx.authInfo?.extra?.call as McpCall, version),
    {
      legacy: "stateless",
      onerror: (e) => services.logger.debug("mcp request rejected", { error: e.message }),
    },
  );
  return {
    fetch: (request, call) =>
      handler.fetch(request, {
        authInfo: {
          token: call.actor.keyId ?? "",
          clientId: call.actor.keyId ?? call.actor.userId,
          scopes: [...call.actor.scopes],
          extra: { call },
        },
      }),
    skill: (origin) => skillMarkdown(tools, origin),
    close: () => handler.close(),
  };
}
