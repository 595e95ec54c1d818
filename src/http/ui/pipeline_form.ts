/**
 * The pipeline editor's form ↔ JSON model. The form edits the parts of a body a person writes
 * most (parameters, settings, each node's main fields) and the raw JSON editor edits all of it;
 * the form overlays what it shows on the spec it was rendered from (`spec_base`), so fields it
 * does not show (checks, enum bounds, calculators, child parameters) pass through untouched.
 *
 * Which side wins on a post: with the browser script, the view the author typed in last
 * (`last_edit`; the script keeps the other in step). Without it, three-way against that base:
 * the JSON changed and the form did not → the JSON; otherwise the form. Both changed apart is
 * refused with a message rather than dropping either edit.
 *
 * Field names: `p.{i}.{name,type,required,default,description}`, `n.{i}.{id,type,source,
 * template_id,template_version,sql,dep.{j},target,table,datasource,mode,pipeline_id,
 * pipeline_version,description}`, `s.{staging_engine,max_parallel_nodes}`; `p_count`/`n_count`
 * say how many rows were drawn. A node depends on another by its row index (`dep.{j}`), so
 * renaming a node keeps the dependencies that point at it; a graph too big for a chip per node
 * posts `depends_on` as comma-separated ids instead.
 */
import { AppError } from "../../errors/mod.ts";

// deno-lint-ignore no-explicit-any
export type Spec = Record<string, any>;
// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

/** Canonical text of a JSON value (keys sorted), to compare specs whatever their layout. */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === "object"
      ? Object.fromEntries(
        Object.keys(v as Obj).sort().map((k) => [k, sort((v as Obj)[k])]),
      )
      : v;
  return JSON.stringify(sort(value));
}

/**
 * Where JSON.parse stopped, 1-based: from the engine's "at position N", or the end of the text
 * when the input simply ran out.
 */
export function syntaxPosition(text: string, message: string): { line: number; column: number } {
  const at = message.match(/at position (\d+)/);
  const offset = at ? Math.min(Number(at[1]), text.length) : text.length;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** A spec's JSON text, or a refusal placed on the JSON editor. */
export function parseSpec(text: string): Spec {
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (e) {
    throw new AppError("pipeline.validation.malformed_json", {
      field: "spec",
      ...syntaxPosition(text, (e as Error).message),
      reason: (e as Error).message.replace(/ in JSON at position \d+.*$/, ""),
    });
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "spec",
      reason: "must be a JSON object with parameters and nodes",
    });
  }
  return spec as Spec;
}

/** How a value reads in a text field: the form's side of the round trip. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.join(",");
  return String(value);
}

/** The form's text unless it still reads as the base value, which then stays as it was typed. */
function kept<T>(base: unknown, text: string, parse: (t: string) => T): unknown {
  return textOf(base) === text ? base : parse(text);
}

function numberOr(text: string): number | string {
  return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : text;
}

/** A default typed by its parameter's type; text that does not fit stays text for the check. */
function typedDefault(type: string, text: string): unknown {
  switch (type) {
    case "integer":
    case "number":
      return numberOr(text);
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "string_list":
      return text.split(",").map((s) => s.trim()).filter(Boolean);
    case "integer_list":
      return text.split(",").map((s) => s.trim()).filter(Boolean).map(numberOr);
    default:
      return text;
  }
}

/** Sets `key` to `value`, or removes it when the value is empty. */
function put(o: Obj, key: string, value: unknown): void {
  if (value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) {
    delete o[key];
  } else o[key] = value;
}

function count(f: Record<string, string>, key: string): number {
  const n = Number(f[key] ?? 0);
  return Number.isInteger(n) && n >= 0 && n <= 500 ? n : 0;
}

function parametersOf(f: Record<string, string>, base: Spec): Obj | undefined {
  const baseEntries = Object.entries((base.parameters ?? {}) as Obj);
  const out: Obj = {};
  for (let i = 0; i < count(f, "p_count"); i++) {
    const v = (k: string) => (f[`p.${i}.${k}`] ?? "").trim();
    const [baseName, baseDecl] = baseEntries[i] ?? ["", {}];
    const name = v("name");
    if (!name && !v("default") && !v("description") && !baseName) continue;
    const decl: Obj = { ...baseDecl };
    decl.type = v("type") || baseDecl.type || "string";
    const required = f[`p.${i}.required`] === "true";
    if (required) decl.required = true;
    else if (baseDecl.required === true) delete decl.required;
    put(decl, "default", kept(baseDecl.default, v("default"), (t) => typedDefault(decl.type, t)));
    put(decl, "description", v("description"));
    out[name || baseName] = decl;
  }
  return Object.keys(out).length || base.parameters ? out : undefined;
}

function nodeOf(f: Record<string, string>, i: number, baseNode: Obj, ids: string[]): Obj {
  const v = (k: string) => (f[`n.${i}.${k}`] ?? "").trim();
  const node: Obj = { ...baseNode };
  node.id = v("id");
  node.type = v("type") || baseNode.type || "DQL";
  put(node, "source", v("source"));
  const templateId = v("template_id");
  if (templateId) {
    const version = kept(baseNode.template?.version, v("template_version"), numberOr);
    node.template = { ...baseNode.template, id: templateId, version };
    if (version === "") delete node.template.version;
  } else delete node.template;
  // Inline SQL keeps its own whitespace: only a wholly blank box means "none".
  const sql = f[`n.${i}.sql`] ?? "";
  put(node, "sql", sql.trim() ? sql.replace(/\r\n/g, "\n") : "");
  // Chips name a dependency by row (so renames follow); a big graph's text field by id.
  const typed = f[`n.${i}.depends_on`];
  const deps = typed !== undefined
    ? typed.split(",").map((d) => d.trim()).filter(Boolean)
    : ids.filter((_, j) => j !== i && f[`n.${i}.dep.${j}`] === "true");
  const baseDeps: string[] = baseNode.depends_on ?? [];
  const sameSet = deps.length === baseDeps.length && deps.every((d) => baseDeps.includes(d));
  put(node, "depends_on", sameSet ? baseNode.depends_on : deps);
  const pipelineId = v("pipeline_id");
  if (pipelineId) {
    node.pipeline = { ...baseNode.pipeline, id: pipelineId };
    put(
      node.pipeline,
      "version",
      kept(baseNode.pipeline?.version, v("pipeline_version"), numberOr),
    );
  } else delete node.pipeline;
  const output: Obj = { ...baseNode.output };
  put(output, "target", v("target"));
  put(output, "table", v("table"));
  put(output, "datasource", v("datasource"));
  put(output, "mode", v("mode"));
  if (Object.keys(output).length) node.output = output;
  else delete node.output;
  put(node, "description", v("description"));
  return node;
}

function settingsOf(f: Record<string, string>, base: Spec): Obj | undefined {
  const settings: Obj = { ...base.settings };
  put(settings, "staging_engine", (f["s.staging_engine"] ?? "").trim());
  put(
    settings,
    "max_parallel_nodes",
    kept(
      base.settings?.max_parallel_nodes,
      (f["s.max_parallel_nodes"] ?? "").trim(),
      (t) => t === "" ? "" : numberOr(t),
    ),
  );
  return Object.keys(settings).length || base.settings ? settings : undefined;
}

/** The spec the form's fields describe, over the base it was rendered from. */
export function specFromForm(f: Record<string, string>, base: Spec): Spec {
  const spec: Spec = { ...base };
  const parameters = parametersOf(f, base);
  if (parameters) spec.parameters = parameters;
  else delete spec.parameters;
  const baseNodes: Obj[] = Array.isArray(base.nodes) ? base.nodes : [];
  const n = count(f, "n_count");
  const ids = Array.from({ length: n }, (_, i) => (f[`n.${i}.id`] ?? "").trim());
  if (n > 0 || base.nodes !== undefined) {
    spec.nodes = ids.map((_, i) => nodeOf(f, i, baseNodes[i] ?? {}, ids));
  }
  const settings = settingsOf(f, base);
  if (settings) spec.settings = settings;
  else delete spec.settings;
  return spec;
}

/**
 * The spec a post means: the JSON alone when no form came with it, else the three-way choice
 * described above.
 */
export function specFromPost(f: Record<string, string>): Spec {
  const json = parseSpec(f.spec ?? "");
  if (f.form !== "1" || f.spec_base === undefined) return json;
  let base: Spec;
  try {
    base = parseSpec(f.spec_base);
  } catch {
    return json;
  }
  const fromForm = specFromForm(f, base);
  // The script says which view the author typed in last; it keeps the other one in step.
  if (f.last_edit === "json") return json;
  if (f.last_edit === "form") return fromForm;
  const b = canonical(base);
  if (canonical(json) === b) return fromForm;
  if (canonical(fromForm) === b) return json;
  if (canonical(fromForm) === canonical(json)) return json;
  throw new AppError("pipeline.execution.invalid_parameter_type", {
    field: "spec",
    reason: "both the form and the JSON were changed; keep the changes in one of them and save",
  });
}

/** An edit of the form's shape: add or remove a parameter or a node. */
export function applyOp(spec: Spec, op: string): Spec {
  const out: Spec = { ...spec };
  const [verb, index] = op.split(":");
  const i = Number(index);
  if (verb === "add_param") {
    const params: Obj = { ...out.parameters };
    let n = Object.keys(params).length + 1;
    while (params[`param_${n}`]) n++;
    params[`param_${n}`] = { type: "string" };
    out.parameters = params;
  } else if (verb === "remove_param" && Number.isInteger(i)) {
    out.parameters = Object.fromEntries(
      Object.entries(out.parameters ?? {}).filter((_, j) => j !== i),
    );
  } else if (verb === "add_node") {
    const nodes: Obj[] = Array.isArray(out.nodes) ? [...out.nodes] : [];
    const ids = new Set(nodes.map((x) => x?.id));
    let n = nodes.length + 1;
    while (ids.has(`node_${n}`)) n++;
    nodes.push({ id: `node_${n}`, type: "DQL", source: "tempdb", sql: "SELECT 1" });
    out.nodes = nodes;
  } else if (verb === "remove_node" && Number.isInteger(i) && Array.isArray(out.nodes)) {
    const gone = out.nodes[i]?.id;
    out.nodes = out.nodes.filter((_: unknown, j: number) => j !== i).map((x: Obj) => {
      if (!Array.isArray(x?.depends_on) || !x.depends_on.includes(gone)) return x;
      const node: Obj = { ...x, depends_on: x.depends_on.filter((d: string) => d !== gone) };
      if (node.depends_on.length === 0) delete node.depends_on;
      return node;
    });
  }
  return out;
}

const NODE_FIELDS: Record<string, string> = {
  "output.target": "target",
  "output.table": "table",
  "output.datasource": "datasource",
  "output.mode": "mode",
  template: "template_id",
  "template.id": "template_id",
  "template.version": "template_version",
  pipeline: "pipeline_id",
  "pipeline.id": "pipeline_id",
  "pipeline.version": "pipeline_version",
};
const FORM_NODE_FIELDS = new Set([
  "id",
  "type",
  "source",
  "sql",
  "depends_on",
  "description",
  ...Object.values(NODE_FIELDS),
]);

/**
 * The form field a refusal names, when the form shows it: `details.field`/`node_id` and the
 * graph reasons mapped onto the row drawn for that parameter or node. Undefined leaves the
 * refusal to the JSON editor.
 */
export function formFieldOf(spec: Spec, details: Obj, code: string): string | undefined {
  const nodes: Obj[] = Array.isArray(spec.nodes) ? spec.nodes : [];
  const nodeIndex = (id: unknown) => {
    if (typeof id === "string" && /^#\d+$/.test(id)) return Number(id.slice(1));
    const i = nodes.findIndex((n) => n?.id === id);
    return i < 0 ? undefined : i;
  };
  const field = typeof details.field === "string" ? details.field : undefined;
  if (field?.startsWith("parameters.")) {
    const [, name, key] = field.split(".");
    const i = Object.keys(spec.parameters ?? {}).indexOf(name);
    if (i < 0) return undefined;
    const k = key ?? (details.reason === "name_invalid" ? "name" : "type");
    return ["name", "type", "required", "default", "description"].includes(k)
      ? `p.${i}.${k}`
      : `p.${i}.type`;
  }
  if (field?.startsWith("settings.")) return `s.${field.slice(9)}`;
  const nodePath = field?.match(/^nodes\.(\d+)\.(.+)$/);
  if (nodePath) {
    const f = NODE_FIELDS[nodePath[2]] ?? nodePath[2];
    return FORM_NODE_FIELDS.has(f) ? `n.${nodePath[1]}.${f}` : undefined;
  }
  if (code === "pipeline.validation.cycle_detected" && Array.isArray(details.cycle_path)) {
    const i = nodeIndex(details.cycle_path[0]);
    return i === undefined ? undefined : `n.${i}.depends_on`;
  }
  const ids = Array.isArray(details.node_ids) ? details.node_ids : [details.node_id];
  // Of several caller nodes the last is the one to fix: the first is usually meant.
  const i = nodeIndex(ids[details.reason === "multiple_caller_nodes" ? ids.length - 1 : 0]);
  if (i === undefined) return undefined;
  const byReason: Record<string, string> = {
    unknown_dependency: "depends_on",
    duplicate_node_id: "id",
    multiple_caller_nodes: "target",
    unknown_datasource: "source",
    readonly_datasource: "source",
    html_template: "template_id",
    self_reference: "pipeline_id",
  };
  const f = field ? NODE_FIELDS[field] ?? field : byReason[String(details.reason)];
  if (f && FORM_NODE_FIELDS.has(f)) return `n.${i}.${f}`;
  // A node named with no field of its own (a template that is not there, say): its id.
  return `n.${i}.id`;
}
