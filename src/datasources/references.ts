/**
 * What blocks deleting a datasource (`datasource.in_use`, spec 3 §4.1): references from stored
 * pipeline versions. The pipelines domain owns those tables, so it registers a finder here, the
 * way content counters are registered for `workspace.in_use`.
 */
import type { Queryable } from "../store/mod.ts";
import type { DatasourceReference, ReferenceFinder } from "./types.ts";

const referenceFinders = new Map<string, ReferenceFinder>();

/**
 * Registers a source of references that blocks deleting a datasource (`datasource.in_use`): the
 * pipelines domain registers the finder over its stored versions (draft, released, discarded)
 * at module load. Finders run inside the delete's transaction. Returns an unregister function.
 */
export function registerReferenceFinder(kind: string, find: ReferenceFinder): () => void {
  referenceFinders.set(kind, find);
  return () => {
    if (referenceFinders.get(kind) === find) referenceFinders.delete(kind);
  };
}

/** Every registered finder's references to `name`, inside the caller's transaction. */
export async function referencesOf(tx: Queryable, name: string): Promise<DatasourceReference[]> {
  const out: DatasourceReference[] = [];
  for (const find of referenceFinders.values()) out.push(...await find(tx, name));
  return out;
}
