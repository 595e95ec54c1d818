/**
 * The pipeline body (docs/authoring.md#the-pipeline-body): what an author writes and a version
 * stores. `parseBody` checks shape and graph once, for every way a body arrives (create, update,
 * import, promotion) and before every run, so the executor can trust what it reads.
 *
 * Decided here:
 * - The staging database is named `tempdb` wherever a datasource name could stand (`source`).
 * - `output.mode` for a datasource target: `append` (default), `replace` (empty the table first),
 *   `create` (create it from the result's columns).
 * - Node `parameters` are allowed on PIPELINE nodes only: the child's inputs, each a literal or
 *   `{"param": name}`; a child input without a mapping takes the parent's value of the same name.
 * - A release check is `{id, name, datasource, query, expectation}`, with `expectation` either
 *   `{kind: "value", value, tolerance?}` or `{kind: "range", min?, max?}`.
 * - `settings`: `staging_engine` (`duckdb` default, or `sqlite`) and `max_parallel_nodes` (1–16,
 *   default 4).
 */
import { z } from "zod";
import { AppError } from "../errors/mod.ts";
import { folderPathDefect } from "../lib/folder_path.ts";
import { getCalculator, isParamRef } from "./calculators.ts";
import { declarationSchema, type ParameterDeclarations, parseDeclarations } from "./parameters.ts";

export const STAGING = "tempdb";
export const NODE_TYPES = ["DQL", "PIPELINE", "CALCULATOR", "DML", "DDL"] as const;
export type NodeType = (typeof NODE_TYPES)[number];
export const NODE_ID = /^[a-z][a-z0-9_]{0,63}$/;
/** A table name, optionally schema-qualified: plain identifiers only, never quoted text. */
export const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,63}(\.[A-Za-z_][A-Za-z0-9_$]{0,63})?$/;

const pin = z.strictObject({ id: z.string().min(1).max(200), version: z.int().min(1) });
const output = z.strictObject({
  target: z.enum(["caller", "tempdb", "datasource"]),
  table: z.string().regex(TABLE_NAME, "a table identifier").optional(),
  datasource: z.string().min(1).max(200).optional(),
  mode: z.enum(["append", "replace", "create"]).optional(),
});
const node = z.strictObject({
  id: z.string().regex(NODE_ID, "must match [a-z][a-z0-9_]{0,63}"),
  type: z.enum(NODE_TYPES),
  source: z.string().min(1).max(200).optional(),
  template: pin.optional(),
  sql: z.string().min(1).max(1_000_000).optional(),
  output: output.optional(),
  depends_on: z.array(z.string()).max(100).optional(),
  pipeline: z.strictObject({ id: z.uuid(), version: z.int().min(1).optional() }).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  calculator: z.strictObject({
    name: z.string().min(1).max(64),
    inputs: z.record(z.string(), z.unknown()).optional(),
    writes: z.record(z.string(), z.string().regex(/^[a-z_][a-z0-9_]{0,63}$/)),
  }).optional(),
  description: z.string().max(2000).optional(),
});
export type PipelineNode = z.infer<typeof node>;

const check = z.strictObject({
  id: z.string().regex(NODE_ID, "must match [a-z][a-z0-9_]{0,63}"),
  name: z.string().min(1).max(200),
  datasource: z.string().min(1).max(200),
  query: z.string().min(1).max(100_000),
  expectation: z.discriminatedUnion("kind", [
    z.strictObject({
      kind: z.literal("value"),
      value: z.union([z.number(), z.string(), z.boolean()]),
      tolerance: z.number().min(0).optional(),
    }),
    z.strictObject({
      kind: z.literal("range"),
      min: z.number().optional(),
      max: z.number().optional(),
    }),
  ]),
});
export type ReleaseCheck = z.infer<typeof check>;

const settings = z.strictObject({
  staging_engine: z.enum(["duckdb", "sqlite"]).optional(),
  max_parallel_nodes: z.int().min(1).max(16).optional(),
});

const body = z.strictObject({
  name: z.string(),
  display_name: z.string().max(200).optional(),
  description: z.string().max(10_000).optional(),
  schema_version: z.int().min(1).max(1).optional(),
  parameters: z.unknown().optional(),
  settings: settings.optional(),
  nodes: z.array(z.unknown()).min(1).max(500),
  checks: z.array(check).max(50).optional(),
});

/**
 * The body's parts as whole schemas, for documents that show them (the tools' `inputSchema`):
 * the very node, check, settings and declaration schemas `parseBody` applies. It applies them in
 * steps, so a defect names its node (`pipeline.validation.node_invalid`), which is why the body
 * schema above takes nodes and parameters as unknown.
 */
export const bodyParts = {
  parameters: z.record(z.string(), declarationSchema),
  settings,
  nodes: z.array(node).min(1).max(500),
  checks: z.array(check).max(50),
};

export interface PipelineBody {
  name: string;
  display_name?: string;
  description?: string;
  schema_version?: number;
  parameters: ParameterDeclarations;
  settings: { staging_engine: "duckdb" | "sqlite"; max_parallel_nodes: number };
  nodes: PipelineNode[];
  checks: ReleaseCheck[];
}

/** The folder-path grammar of pipeline names with both `details.reason` values. */
export function checkPipelineName(name: unknown): string {
  const defect = typeof name === "string"
    ? folderPathDefect(name)
    : { reason: "grammar" as const, detail: "must be a string" };
  if (defect) {
    throw new AppError("pipeline.validation.name_invalid", {
      name: typeof name === "string" ? name : JSON.stringify(name ?? null),
      reason: defect.reason,
      detail: defect.detail,
    });
  }
  return name as string;
}

function nodeError(nodeId: string | undefined, field: string, reason: string): AppError {
  return new AppError("pipeline.validation.node_invalid", {
    node_id: nodeId ?? "(no id)",
    field,
    reason,
  });
}

function graphError(reason: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("pipeline.validation.graph_invalid", { reason, ...details });
}

/** Per-type rules of the node schema. */
function checkNode(n: PipelineNode): void {
  const has = (field: keyof PipelineNode) => n[field] !== undefined;
  const forbid = (...fields: (keyof PipelineNode)[]) => {
    for (const f of fields) if (has(f)) throw nodeError(n.id, f, `not allowed on a ${n.type} node`);
  };
  const need = (field: keyof PipelineNode) => {
    if (!has(field)) throw nodeError(n.id, field, `required on a ${n.type} node`);
  };
  if (n.template && n.sql !== undefined) {
    throw nodeError(n.id, "sql", "inline sql is allowed only while the node has no template");
  }
  switch (n.type) {
    case "DQL":
      need("source");
      if (!n.template && n.sql === undefined) throw nodeError(n.id, "sql", "a template or sql");
      forbid("pipeline", "calculator", "parameters");
      break;
    case "DML":
    case "DDL":
      need("source");
      if (n.source === STAGING) throw nodeError(n.id, "source", "writes go to a datasource");
      if (!n.template && n.sql === undefined) throw nodeError(n.id, "sql", "a template or sql");
      forbid("pipeline", "calculator", "parameters", "output");
      break;
    case "PIPELINE":
      need("pipeline");
      forbid("source", "template", "sql", "calculator");
      if (n.output?.target === "datasource") {
        throw nodeError(n.id, "output.target", "a child result goes to tempdb or the caller");
      }
      break;
    case "CALCULATOR":
      need("calculator");
      forbid("source", "template", "sql", "output", "pipeline", "parameters");
      break;
  }
  const out = n.output;
  if (out) {
    if (out.target !== "caller" && !out.table) {
      throw nodeError(n.id, "output.table", `required for target ${out.target}`);
    }
    if (out.target === "datasource" && !out.datasource) {
      throw nodeError(n.id, "output.datasource", "required for target datasource");
    }
    if (out.target !== "datasource" && (out.datasource || out.mode)) {
      throw nodeError(
        n.id,
        out.datasource ? "output.datasource" : "output.mode",
        "datasource target only",
      );
    }
    if (out.target === "caller" && out.table) {
      throw nodeError(n.id, "output.table", "the caller takes no table");
    }
  }
}

/** Which node delivers to the caller: DQL/PIPELINE nodes with target caller or no output. */
export function isCallerNode(n: PipelineNode): boolean {
  return (n.type === "DQL" || n.type === "PIPELINE") && (!n.output || n.output.target === "caller");
}

/** Graph rules: unique ids, known dependencies, at most one caller, no cycle (with its path). */
function checkGraph(nodes: PipelineNode[], selfId: string | undefined): void {
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) throw graphError("duplicate_node_id", { node_id: n.id });
    ids.add(n.id);
  }
  for (const n of nodes) {
    for (const dep of n.depends_on ?? []) {
      if (!ids.has(dep)) throw graphError("unknown_dependency", { node_id: n.id, dependency: dep });
    }
    if (selfId && n.pipeline?.id === selfId) throw graphError("self_reference", { node_id: n.id });
  }
  const callers = nodes.filter(isCallerNode).map((n) => n.id);
  if (callers.length > 1) throw graphError("multiple_caller_nodes", { node_ids: callers });
  const cycle = findCycle(nodes);
  if (cycle) {
    throw new AppError("pipeline.validation.cycle_detected", { cycle_path: cycle });
  }
}

/** A dependency cycle as a path `[a, b, …, a]`, or undefined. */
export function findCycle(nodes: PipelineNode[]): string[] | undefined {
  const deps = new Map(nodes.map((n) => [n.id, n.depends_on ?? []]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const n of nodes) {
    const found = visit(n.id);
    if (found) return found;
  }
  return undefined;
}

/** The refusal of a body the schema does not take: its first issue, where and why. */
export function bodyRefusal(error: z.ZodError): AppError {
  const issue = error.issues[0];
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: issue.path.map(String).join(".") || "body",
    reason: issue.message,
  });
}

/**
 * Parses and checks a body. `selfId` (the pipeline's own id, when it has one) refuses a PIPELINE
 * node pinning it directly; transitive pins and datasource references need the store and are
 * the pipeline service's to check.
 */
export function parseBody(input: unknown, selfId?: string): PipelineBody {
  const parsed = body.safeParse(input);
  if (!parsed.success) throw bodyRefusal(parsed.error);
  const raw = parsed.data;
  checkPipelineName(raw.name);
  const nodes = raw.nodes.map((candidate, i) => {
    const result = node.safeParse(candidate);
    if (!result.success) {
      const issue = result.error.issues[0];
      const id = (candidate as { id?: unknown })?.id;
      throw nodeError(
        typeof id === "string" ? id : `#${i}`,
        issue.path.map(String).join(".") || "node",
        issue.message,
      );
    }
    checkNode(result.data);
    return result.data;
  });
  checkGraph(nodes, selfId);
  const checkIds = new Set<string>();
  for (const c of raw.checks ?? []) {
    if (checkIds.has(c.id)) {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: "checks",
        reason: `duplicate check id ${c.id}`,
      });
    }
    checkIds.add(c.id);
  }
  return {
    ...raw,
    parameters: parseDeclarations(raw.parameters),
    settings: {
      staging_engine: raw.settings?.staging_engine ?? "duckdb",
      max_parallel_nodes: raw.settings?.max_parallel_nodes ?? 4,
    },
    nodes,
    checks: raw.checks ?? [],
  };
}

/**
 * Derived parameters, listed on read: one per key a calculator node writes, typed by the
 * calculator's output. An output typed like its input takes the declared type of the parameter it
 * reads, else the literal's type.
 */
export function derivedParameters(
  nodes: PipelineNode[],
  declared: ParameterDeclarations,
): Record<string, { type: string; required: false; derived: true }> {
  const out: Record<string, { type: string; required: false; derived: true }> = {};
  for (const n of nodes) {
    if (!n.calculator) continue;
    const calc = getCalculator(n.calculator.name);
    for (const [output, param] of Object.entries(n.calculator.writes)) {
      let type: string = calc?.outputs[output] ?? "string";
      if (type === "input") type = inputType(Object.values(n.calculator.inputs ?? {}), declared);
      out[param] = { type, required: false, derived: true };
    }
  }
  return out;
}

function inputType(inputs: unknown[], declared: ParameterDeclarations): string {
  const first = inputs.flatMap((v) => Array.isArray(v) ? v : [v]).find((v) => v !== null);
  if (isParamRef(first)) return declared[first.param]?.type ?? "string";
  if (typeof first === "number") return Number.isInteger(first) ? "integer" : "number";
  return typeof first === "boolean" ? "boolean" : "string";
}

/** Nodes in an order where each comes after its dependencies (the body is acyclic). */
export function topologicalOrder(nodes: PipelineNode[]): PipelineNode[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const placed = new Set<string>();
  const out: PipelineNode[] = [];
  const place = (n: PipelineNode) => {
    if (placed.has(n.id)) return;
    placed.add(n.id);
    for (const dep of n.depends_on ?? []) place(byId.get(dep)!);
    out.push(n);
  };
  nodes.forEach(place);
  return out;
}

/** The node, check and settings schemas, for the pipeline view (views.ts). */
export { check as checkSchema, node as nodeSchema, settings as settingsSchema };
