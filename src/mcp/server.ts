/**
 * One `McpServer` per request (the SDK's stateless serving), its tools registered from the
 * catalogue in order, with the docs resources and prompts of guidance.ts. Every call runs the same
 * steps around the tool's handler:
 *
 *  1. arguments validated by the tool's closed zod schema (a failure is the REST validation code,
 *     naming the argument sent: arguments.ts);
 *  2. the floor judged by identity's `AccessGuard`, the very decision REST routes take (the
 *     key's scope, then the issuer's current role in the pinned workspace; denials audited);
 *  3. the handler, over the services, with the key's owner and pinned workspace;
 *  4. its output checked against the declared output schema (a mismatch is our bug: logged,
 *     answered `internal.unexpected`);
 *  5. `mcp.tool.called` for every call, `mcp.tool.write` for every successful mutating one.
 *
 * The SDK is handed schemas that validate nothing (their JSON Schema is the tool's own), so steps
 * 1 and 4 happen here, once, and a refusal always carries the error envelope's code rather than
 * the SDK's bare text.
 */
import {
  McpServer,
  type ServerContext,
  type StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import { AppError, toAppError } from "../errors/mod.ts";
import type { Services } from "../services.ts";
import { argumentRefusal } from "./arguments.ts";
import { INSTRUCTIONS, registerGuidance } from "./guidance.ts";
import { toolRefusal, toolSuccess } from "./results.ts";
import { rowCaps } from "./rows.ts";
import { type AnyObjectSchema, FLOORS, type Progress, type ToolDef } from "./tool.ts";
import type { McpCall } from "./call.ts";

export const SERVER_NAME = "pipeline-service";

/**
 * The revisions served (docs/decisions.md#protocol-revisions). The SDK would also take the 2025
 * revisions
 * before 2025-11-25; held to these, its legacy transport answers any other
 * `MCP-Protocol-Version` 400, and an `initialize` naming an older revision in its body is
 * answered with 2025-11-25 (the MCP specification's negotiation).
 */
const REVISIONS = ["2025-11-25", "2026-07-28"];

/**
 * `schema` as the SDK sees it: its JSON Schema for `tools/list` (converted once per schema and
 * target, not on every request's fresh server), and a validation that accepts anything (the
 * wrapper validates, answering our own refusal).
 */
const listed = new WeakMap<AnyObjectSchema, StandardSchemaWithJSON>();
function listedOnly(schema: AnyObjectSchema): StandardSchemaWithJSON {
  const known = listed.get(schema);
  if (known) return known;
  const std = schema["~standard"] as unknown as {
    jsonSchema: Record<"input" | "output", (o: { target: string }) => Record<string, unknown>>;
  };
  const memo = new Map<string, Record<string, unknown>>();
  const convert = (io: "input" | "output") => (options: { target: string }) => {
    const key = `${io}:${options.target}`;
    let json = memo.get(key);
    // Frozen rather than copied per request (a copy was a tenth of a call's cost): the SDK reads
    // these on every call and decorates none of them, since every root is `type: "object"`; were
    // it ever to try, the frozen object would throw in the tests rather than drift silently.
    if (!json) memo.set(key, json = deepFreeze(objectRoot(std.jsonSchema[io](options))));
    return json;
  };
  const wrapped = {
    "~standard": {
      version: 1,
      vendor: "pipeline-service",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: convert("input"), output: convert("output") },
    },
  } as unknown as StandardSchemaWithJSON;
  listed.set(schema, wrapped);
  return wrapped;
}

/** The JSON Schema `tools/list` sends for `schema` (the same conversion, for tests). */
export function listedJson(
  schema: AnyObjectSchema,
  io: "input" | "output",
  target = "draft-2020-12",
): Record<string, unknown> {
  const std = listedOnly(schema)["~standard"] as unknown as {
    jsonSchema: Record<"input" | "output", (o: { target: string }) => Record<string, unknown>>;
  };
  return std.jsonSchema[io]({ target });
}

/**
 * A tool's schemas must have an object at the root; a view that carries a name (`Template`,
 * `Pipeline`, for REST's document) converts to a bare `$ref` into `$defs`, so the named
 * definition is lifted to the root (still under `$defs` when something else refers to it).
 */
function objectRoot(json: Record<string, unknown>): Record<string, unknown> {
  const { $ref, $defs, ...rest } = json as {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  };
  const name = typeof $ref === "string" ? /^#\/\$defs\/(.+)$/.exec($ref)?.[1] : undefined;
  if (!name || !$defs?.[name]) return json;
  const { [name]: root, ...others } = $defs;
  const pointer = `"#/$defs/${name}"`;
  const named = JSON.stringify([root, others]).includes(pointer);
  const defs = named ? $defs : others;
  return { ...rest, ...root, ...(Object.keys(defs).length ? { $defs: defs } : {}) };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** What a call hears from its transport: where progress goes, and the client's abandonment. */
export interface CallIo {
  progress: Progress;
  signal: AbortSignal;
}

/** Progress of a call that asked for none (the fast path serves only such calls). */
export const NO_PROGRESS: Progress = () => Promise.resolve();

function progressOf(ctx: ServerContext): Progress {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return NO_PROGRESS;
  return async (progress, total, message) => {
    // A client that went away cannot hear progress; the tool's work goes on regardless.
    await ctx.mcpReq.notify({
      method: "notifications/progress",
      params: { progressToken: token, progress, total, message },
    }).catch(() => {});
  };
}

/**
 * Runs one call of `tool` through the steps above and answers the `tools/call` result. The one
 * runner of both paths: the SDK's (below) and the endpoint's fast path (fast_path.ts).
 */
export async function runTool(
  services: Services,
  tool: ToolDef,
  call: McpCall,
  args: unknown,
  io: CallIo,
) {
  const started = performance.now();
  const { actor, workspace } = call;
  let outcome = "ok";
  try {
    const given = (args ?? {}) as Record<string, unknown>;
    const parsed = tool.input.safeParse(given);
    if (!parsed.success) throw argumentRefusal(tool.name, tool.input, given, parsed.error.issues);
    await services.identity.access.authorize(
      {
        operation: FLOORS[tool.floor],
        principal: actor,
        // Judged in the pinned workspace even when the tool reads no workspace data: a key whose
        // issuer lost the workspace has lost its authority
        // (docs/decisions.md#lost-authority-covers-every-tool), for every tool.
        workspace,
        membershipCount: call.membershipCount,
      },
      { path: `/mcp#${tool.name}`, method: "tools/call" },
    );
    const output = await tool.handler(services, {
      actor,
      workspace,
      settings: rowCaps(services),
      progress: io.progress,
      correlationId: call.correlationId,
      signal: io.signal,
    }, parsed.data);
    const checked = tool.output.safeParse(output);
    if (!checked.success) {
      services.platform.logger.error("tool output does not match its schema", {
        tool: tool.name,
        issue: checked.error.issues[0]?.message,
        path: checked.error.issues[0]?.path.map(String).join("."),
      });
      throw new AppError("internal.unexpected");
    }
    if (!tool.annotations.readOnlyHint) {
      await services.admin.audit.record({
        event: "mcp.tool.write",
        by: actor,
        workspaceId: workspace.id,
        details: { tool: tool.name, key_id: actor.keyId },
      });
    }
    return toolSuccess(checked.data);
  } catch (e) {
    const error = toAppError(e);
    if (error.code === "internal.unexpected" && error !== e) unexpected(services, tool, e);
    outcome = error.code;
    return toolRefusal(error);
  } finally {
    services.platform.metrics?.toolCalled(tool.name, outcome, (performance.now() - started) / 1000);
    await services.admin.audit.record({
      event: "mcp.tool.called",
      by: actor,
      workspaceId: tool.workspaceFree ? null : workspace.id,
      details: {
        tool: tool.name,
        key_id: actor.keyId,
        outcome,
        elapsed_ms: Math.round(performance.now() - started),
      },
    }).catch((e) =>
      services.platform.logger.error("audit of a tool call failed", {
        tool: tool.name,
        error: e instanceof Error ? e.message : String(e),
      })
    );
  }
}

function unexpected(services: Services, tool: ToolDef, e: unknown): void {
  services.platform.logger.error("unexpected error in a tool", {
    tool: tool.name,
    error: e instanceof Error ? e.message : String(e),
    stack: e instanceof Error ? e.stack : undefined,
  });
}

/**
 * The server for one request: every tool of `tools`, judged and run for `call`, and, when `tools`
 * is the whole `catalogue` (not the one tool a `tools/call` names), the docs resources and prompts.
 * No list ever changes while a server lives (one request), so none is declared `listChanged`.
 */
export function buildServer(
  services: Services,
  tools: readonly ToolDef[],
  call: McpCall,
  version: string,
  catalogue: readonly ToolDef[] = tools,
): McpServer {
  const guided = tools === catalogue;
  const server = new McpServer(
    { name: SERVER_NAME, version },
    {
      instructions: INSTRUCTIONS,
      supportedProtocolVersions: REVISIONS,
      capabilities: {
        tools: { listChanged: false },
        ...(guided ? { resources: { listChanged: false }, prompts: { listChanged: false } } : {}),
      },
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: listedOnly(tool.listed ?? tool.input),
        outputSchema: listedOnly(tool.output),
        annotations: { title: tool.title, ...tool.annotations, openWorldHint: false },
      },
      (args: unknown, ctx: ServerContext) =>
        runTool(services, tool, call, args, {
          progress: progressOf(ctx),
          signal: ctx.mcpReq.signal,
        }),
    );
  }
  if (guided) registerGuidance(server, catalogue, () => services.platform.origin());
  return server;
}
