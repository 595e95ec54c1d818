/**
 * The preview's diff (`GET /promotion/preview`): what a push of the bundle would change on the
 * target, computed from the bundle and the target's inventory, so the target is never written.
 *
 * Per pipeline and template: the target's version and the new one, and `change` (`added`,
 * `updated`, `unchanged`). Per pipeline also the parameters added, removed or retyped and the
 * result columns added, removed or retyped. Result columns are the ones the version's last run
 * delivered (on the sender for the new version, on the target for the old one); when either side
 * never ran, `result_columns` is null (unknown), never a guess.
 *
 * A change is `breaking` when an existing caller of an endpoint the target publishes for that
 * pipeline would fail: a removed parameter, a parameter newly required (required with no default,
 * where it was absent or optional), a retyped parameter, a removed or retyped result column. The
 * same changes on a pipeline no endpoint of the target serves are reported with `breaking: false`.
 */
import type { PromotedEndpoint } from "../endpoints/mod.ts";
import type { Bundle } from "./closure.ts";
import type {
  ColumnChange,
  Inventory,
  InventoryRow,
  ParameterChange,
  PipelinePreview,
  PreviewResult,
} from "./views.ts";

type Decl = { type?: string; required?: boolean; default?: unknown };
type Column = { name: string; type: string };

function newlyRequired(d: Decl): boolean {
  return d.required === true && d.default === undefined;
}

export function parameterChanges(
  before: Record<string, Decl>,
  after: Record<string, Decl>,
  published: boolean,
): ParameterChange[] {
  const out: ParameterChange[] = [];
  for (const [name, d] of Object.entries(after)) {
    const old = before[name];
    if (!old) {
      out.push({ name, change: "added", to: d.type, breaking: published && newlyRequired(d) });
    } else if (old.type !== d.type) {
      out.push({ name, change: "retyped", from: old.type, to: d.type, breaking: published });
    } else if (newlyRequired(d) && !newlyRequired(old)) {
      out.push({ name, change: "now_required", breaking: published });
    }
  }
  for (const [name, d] of Object.entries(before)) {
    if (!after[name]) out.push({ name, change: "removed", from: d.type, breaking: published });
  }
  return out;
}

export function columnChanges(
  before: Column[],
  after: Column[],
  published: boolean,
): ColumnChange[] {
  const out: ColumnChange[] = [];
  const old = new Map(before.map((c) => [c.name, c.type]));
  const now = new Map(after.map((c) => [c.name, c.type]));
  for (const [name, type] of now) {
    if (!old.has(name)) out.push({ name, change: "added", to: type, breaking: false });
    else if (old.get(name) !== type) {
      out.push({ name, change: "retyped", from: old.get(name), to: type, breaking: published });
    }
  }
  for (const [name, type] of old) {
    if (!now.has(name)) out.push({ name, change: "removed", from: type, breaking: published });
  }
  return out;
}

export function diffBundle(
  bundle: Bundle & { resultColumns?: Map<string, Column[] | null> },
  endpoints: PromotedEndpoint[],
  inventory: Inventory,
): PreviewResult {
  const publishedThere = new Set(
    inventory.endpoints.map((e) => e.pipeline_name).filter((n): n is string => n !== null),
  );
  const byName = (rows: InventoryRow[]) => new Map(rows.map((r) => [r.name, r]));
  const targetPipelines = byName(inventory.pipelines);
  const targetTemplates = byName(inventory.templates);
  const pipelines = bundle.pipelines.map((p): PipelinePreview => {
    const name = String(p.name);
    const version = Number(p.version);
    const there = targetPipelines.get(name);
    const published = publishedThere.has(name);
    const parameters = parameterChanges(
      (there?.parameters ?? {}) as Record<string, Decl>,
      (p.parameters ?? {}) as Record<string, Decl>,
      published && there !== undefined,
    );
    const after = bundle.resultColumns?.get(`${p.id}@${version}`) ?? null;
    const before = there ? there.result_columns ?? null : [];
    const columns = after && before
      ? columnChanges(before, after, published && there !== undefined)
      : null;
    const change = !there
      ? "added"
      : there.current_version === version && there.body_hash === p.body_hash
      ? "unchanged"
      : "updated";
    return {
      name,
      target_version: there?.current_version ?? null,
      new_version: version,
      change,
      published_on_target: published,
      parameters,
      result_columns: columns,
      breaking: parameters.some((c) => c.breaking) || (columns ?? []).some((c) => c.breaking),
    };
  });
  const templates = bundle.templates.map((t) => {
    const there = targetTemplates.get(String(t.id));
    const version = Number(t.version);
    const same = there?.current_version === version && there.body_hash === t.body_hash;
    return {
      name: String(t.id),
      target_version: there?.current_version ?? null,
      new_version: version,
      change: !there ? "added" as const : same ? "unchanged" as const : "updated" as const,
    };
  });
  const targetEndpoints = new Map(inventory.endpoints.map((e) => [e.path_pattern, e]));
  const endpointRows = endpoints.map((e) => {
    const there = targetEndpoints.get(e.path_pattern);
    return {
      path_pattern: e.path_pattern,
      pipeline_name: e.pipeline_name,
      change: !there
        ? "added" as const
        : there.pipeline_name !== e.pipeline_name
        ? "changed" as const
        : "unchanged" as const,
    };
  });
  return {
    target: inventory.deployment,
    workspace: inventory.workspace,
    pipelines,
    templates,
    endpoints: endpointRows,
    breaking: pipelines.some((p) => p.breaking),
  };
}
