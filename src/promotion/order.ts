/**
 * Closure order of a push (docs/decisions.md#a-push-is-all-or-nothing): template versions before
 * the templates importing them, child pipelines before their parents. Entries of the batch are
 * sorted among themselves; a pin naming something outside the batch must already exist on the
 * receiver (checked on apply).
 */
import type { VerifiedImport } from "../pipelines/mod.ts";
import type { TemplateVersionPayload } from "../templates/mod.ts";

/** Depth-first post-order over `deps`, stable in input order; a cycle is left to the apply. */
function postOrder<T>(items: T[], keyOf: (t: T) => string, deps: (t: T) => string[]): T[] {
  const byKey = new Map(items.map((t) => [keyOf(t), t]));
  const out: T[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (t: T) => {
    const k = keyOf(t);
    if (state.has(k)) return;
    state.set(k, "open");
    for (const d of deps(t)) {
      const dep = byKey.get(d);
      if (dep) visit(dep);
    }
    state.set(k, "done");
    out.push(t);
  };
  items.forEach(visit);
  return out;
}

export function orderTemplates<T extends { payload: TemplateVersionPayload; name: string }>(
  items: T[],
): T[] {
  return postOrder(
    items,
    (t) => `${t.name}@${t.payload.version}`,
    (t) => (t.payload.imports ?? []).map((i) => `${i.id}@${i.version}`),
  );
}

export function orderPipelines(items: VerifiedImport[]): VerifiedImport[] {
  const idOf = (p: VerifiedImport) => String(p.payload.id ?? p.body.name);
  return postOrder(
    items,
    idOf,
    (p) => p.body.nodes.flatMap((n) => (n.pipeline ? [n.pipeline.id] : [])),
  );
}
