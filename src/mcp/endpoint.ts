/**
 * The tool endpoint's transport: the official SDK's `createMcpHandler` serving both revisions
 * (docs/decisions.md#protocol-revisions) — 2026-07-28 stateless with `server/discover`, and 2025-11-25
 * (`initialize`) through the SDK's stateless legacy leg, which needs no session ids and answers
 * GET and DELETE 405. The SDK checks `MCP-Protocol-Version` (unsupported: 400) and the
 * `Mcp-Method` / `Mcp-Name` headers against the body; credentials, Origin, Host, rate limits and
 * key kinds are the HTTP front end's steps, run before a request gets here.
 *
 * Every request gets a fresh server (the SDK's stateless serving). A `tools/call` naming a
 * catalogued tool gets a server holding just that tool: registering all of them per request is
 * most of what a call would otherwise cost (bench/mcp.ts). The body is read once, here, and
 * handed to the SDK parsed; a body that is not JSON goes to the SDK unread, which answers it.
 *
 * Before any of that, the fast path (fast_path.ts) takes the one shape it serves — a single
 * `tools/call` the SDK would accept as it stands — and runs it through the same runner without an
 * SDK server; everything else, including every request the SDK would refuse, goes to the SDK.
 */
import { createMcpHandler } from "@modelcontextprotocol/server";
import { listDocs } from "../docs/mod.ts";
import type { Services } from "../services.ts";
import type { McpCall } from "./call.ts";
import { CATALOGUE } from "./catalogue.ts";
import { accept, LegacyAnswers, serve } from "./fast_path.ts";
import { buildServer, NO_PROGRESS, runTool, SERVER_NAME } from "./server.ts";
import { skillMarkdown } from "./skill.ts";
import type { ToolDef } from "./tool.ts";

export interface McpEndpoint {
  /** Serves one POST /mcp (or the 405 of another method) for an authenticated call. */
  fetch(request: Request, call: McpCall): Promise<Response>;
  /** `/skill.md`: the agents' guide to these tools, naming `origin` as the service's. */
  skill(origin: string): Promise<string>;
  close(): Promise<void>;
}

interface PerRequest {
  call: McpCall;
  /** The one tool a `tools/call` names, when it is catalogued. */
  only?: ToolDef;
}

export interface McpEndpointOptions {
  /** Serve the fast path's shape without the SDK (default true; tests turn it off to compare). */
  fastPath?: boolean;
}

export function createMcpEndpoint(
  services: Services,
  tools: readonly ToolDef[] = CATALOGUE,
  options: McpEndpointOptions = {},
): McpEndpoint {
  const version = services.platform.buildInfo.version;
  const serverInfo = { name: SERVER_NAME, version };
  const fastPath = options.fastPath ?? true;
  const legacyAnswers = new LegacyAnswers();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const handler = createMcpHandler(
    (ctx) => {
      const { call, only } = ctx.authInfo?.extra?.perRequest as PerRequest;
      return buildServer(services, only ? [only] : tools, call, version, tools);
    },
    {
      legacy: "stateless",
      onerror: (e) => services.platform.logger.debug("mcp request rejected", { error: e.message }),
    },
  );
  return {
    async fetch(request, call) {
      let parsedBody: unknown;
      let source = request;
      if (request.method === "POST") {
        const read = request.text();
        const text = await (call.bodyWithin ? call.bodyWithin(read) : read);
        try {
          parsedBody = JSON.parse(text);
        } catch {
          // Not JSON: the SDK reads it again from this copy and answers its parse error.
          source = new Request(request, { body: text });
        }
      }
      const fast = fastPath && parsedBody !== undefined
        ? accept(request, parsedBody, byName)
        : undefined;
      if (fast) {
        return await serve(
          fast,
          (signal) =>
            runTool(services, fast.tool, call, fast.args, { progress: NO_PROGRESS, signal }),
          serverInfo,
          request,
          legacyAnswers,
        );
      }
      const named = calledTool(parsedBody);
      const perRequest: PerRequest = { call, only: named ? byName.get(named) : undefined };
      return await handler.fetch(source, {
        authInfo: {
          token: call.actor.keyId ?? "",
          clientId: call.actor.keyId ?? call.actor.userId,
          scopes: [...call.actor.scopes],
          extra: { perRequest },
        },
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
    },
    skill: async (origin) => skillMarkdown(tools, origin, await listDocs()),
    close: () => {
      legacyAnswers.close();
      return handler.close();
    },
  };
}

/** The tool a single `tools/call` message names; undefined for anything else. */
function calledTool(body: unknown): string | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
}
