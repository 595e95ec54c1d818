/**
 * What a tool is: a name, the floor it is judged by (docs/mcp.md#tools-and-their-floors), its
 * input and output schemas, annotations that tell the truth, and a handler over the one `Services`
 * value. A tool is a thin front end like a REST route: it calls the same service with the key's
 * owner as the actor and the key's pinned workspace, and never restates a rule the service already
 * enforces.
 */
import type { z } from "zod";
import type { Operation, Principal, WorkspaceContext } from "../identity/mod.ts";
import type { RowCaps } from "../lib/bounded_rows.ts";
import type { Services } from "../services.ts";

/**
 * The floors of docs/mcp.md#tools-and-their-floors, one per distinct (scope, role) pair. Each is a row of the
 * operation table (identity/operations.ts), so the scope-and-role decision and its audit rows are
 * the very ones REST uses.
 */
export const FLOORS = {
  /** read / view, inside the pinned workspace */
  read: "tools.read",
  /** read / view, touching no workspace data (calculators, docs) */
  read_instance: "tools.read_instance",
  /** execute / execute */
  execute: "tools.execute",
  /** author / execute (pipelines_execute_node) */
  execute_node: "tools.execute_node",
  /** author / view (introspection, previews, probes) */
  inspect: "tools.inspect",
  /** author / ws_admin (datasources_test) */
  datasource_test: "tools.datasource_test",
  /** author / author */
  write: "tools.write",
} as const satisfies Record<string, Operation>;

export type Floor = keyof typeof FLOORS;

/** MCP tool annotations, all three stated for every tool (no defaults to misread). */
export interface ToolAnnotations {
  /** The tool changes nothing. */
  readOnlyHint: boolean;
  /** The tool removes or overwrites something (only meaningful when not read-only). */
  destructiveHint: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint: boolean;
}

/** Reports progress to the client; a no-op when the client sent no progress token. */
export type Progress = (progress: number, total?: number, message?: string) => Promise<void>;

/** What a handler receives besides its arguments. */
export interface ToolContext {
  /** The key's owner (the principal the HTTP steps resolved). */
  actor: Principal;
  /** The key's pinned workspace, with the issuer's flags; workspace-free tools ignore it. */
  workspace: WorkspaceContext;
  /** The tool settings of this instance (`service.mcp.*`). */
  settings: RowCaps;
  progress: Progress;
  /** The request's correlation id (executions record it). */
  correlationId: string;
  /**
   * Aborted when the transport hears that the client abandoned the call (on 2025-11-25: the client
   * cancelled the answer's stream; on 2026-07-28: the request's own signal). A tool stops waiting
   * on it, never the work it started. On 2026-07-28 only a tool that declares `waits` is handed
   * the request's signal by the endpoint's fast path (reading it costs every call); the others get
   * one that never aborts.
   */
  signal: AbortSignal;
}

// deno-lint-ignore no-explicit-any
export type AnyObjectSchema = z.ZodObject<any>;

export interface ToolDef<
  I extends AnyObjectSchema = AnyObjectSchema,
  O extends AnyObjectSchema = AnyObjectSchema,
> {
  /** `group_verb`, unique; the order of the catalogue is the order of `tools/list`. */
  name: string;
  title: string;
  /** What the tool does, for the agent: when to use it, what it answers, what it never does. */
  description: string;
  floor: Floor;
  /**
   * The tool reads no workspace data (calculators, docs). It is still judged in the pinned
   * workspace: a key whose issuer lost it has lost its authority everywhere.
   */
  workspaceFree?: boolean;
  /**
   * The tool waits on something outside the request (a run) and stops waiting when the client
   * goes away: it reads `ctx.signal`.
   */
  waits?: boolean;
  /**
   * Closed (`z.strictObject`), every property described; names are the REST field names
   * (docs/decisions.md#tool-arguments-are-rest-fields).
   */
  input: I;
  /**
   * What `tools/list` shows instead of `input`, when the service checks more than the tool does:
   * the same arguments with their full shapes (a pipeline body's nodes), while the tool validates
   * only `input` so that the service's refusals keep REST's codes. Its keys are `input`'s.
   */
  listed?: AnyObjectSchema;
  /** The `structuredContent` shape: the REST `data` shape, or the rows shape (rows.ts). */
  output: O;
  annotations: ToolAnnotations;
  /**
   * Answers the output. Typed loosely on purpose: services answer their own view types (often
   * open records), and every answer is checked against `output` at run time before it leaves.
   */
  handler: (services: Services, ctx: ToolContext, args: z.output<I>) => Promise<object>;
}

/** Declares a tool with its handler typed from its schemas. */
export function defineTool<I extends AnyObjectSchema, O extends AnyObjectSchema>(
  def: ToolDef<I, O>,
): ToolDef {
  return def as unknown as ToolDef;
}

/**
 * The annotation sets tools use; pick one rather than spelling the three flags each time. They
 * hold for every input (docs/mcp.md#annotations): a tool that can change or remove what exists is
 * destructive, and a tool whose second identical call is refused or records something new is not
 * idempotent. `src/mcp/catalogue_test.ts` checks them against the store around each call.
 */
export const READ: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
};
/** Writes, but only adds: nothing that exists changes; a second call adds again or is refused. */
const ADDS: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
};
/** Writes over or away what exists; a second call is refused or does it again. */
const CHANGES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
};
/** Creates something new on every call (a second identical call is refused or adds another). */
export const CREATE = ADDS;
/** Starts work that only records something new (a check run, a connection test). */
export const RUN = ADDS;
/**
 * Replaces something in place against `if_match`: the same call again is stale (the hash moved on)
 * and refused with a conflict code.
 */
export const OVERWRITE = CHANGES;
/** Removes something; the same call again finds nothing and is refused. */
export const REMOVE = CHANGES;
/**
 * Runs a pipeline: its DML and DDL nodes may write to datasources (insert, replace, drop), so a run
 * is destructive whatever the pipeline holds today; and each call is a new run.
 */
export const EXECUTE = CHANGES;
/**
 * Stops a running execution, throwing away its unfinished work; asked again once it has stopped,
 * it is refused (`pipeline.execution.not_running`).
 */
export const CANCEL = CHANGES;
