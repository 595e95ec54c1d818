/**
 * Template pins: which stored versions pin which template version (docs/authoring.md#versions: a
 * pinned version is not discarded, `template.in_use`). A pinner is a pipeline version (a node's
 * `template`) or a template version (an import). The owner of the pinner writes its pins in the
 * transaction that saves the version ({@link recordPins} replaces the set, so an overwritten draft
 * keeps no stale pins) and drops them in the transaction that purges it ({@link dropPins}); the
 * template lifecycle reads them ({@link pinnersOf}) before a discard, a purge or an entity delete.
 *
 * Every stored pinner counts, whatever its status: a discarded pipeline version can be restored
 * and must then still find its template.
 */
import type { Queryable } from "../store/mod.ts";
import type { EntityKind, Pinner, VersionStatus } from "../versions/mod.ts";

/** The version that pins: `id` is the pinner entity's UUID. */
export interface PinnerRef {
  kind: EntityKind;
  id: string;
  version: number;
}

/** One pinned template version, by the template's UUID (see {@link resolvePins}). */
export interface TemplatePin {
  template_id: string;
  version: number;
}

/** A pin as a pipeline node or an import names it: the template's name (its public id). */
export interface PinRequest {
  id: string;
  version: number;
}

/** A {@link PinRequest} found in the workspace, with what a caller checks before pinning. */
export interface ResolvedPin extends TemplatePin {
  name: string;
  type: "sql" | "html";
  dialect: string | null;
  status: VersionStatus;
}

/**
 * Replaces the pins of `pinner` with `pins` (deduplicated). Call it in the transaction that
 * writes the pinner version, after the version row exists.
 */
export async function recordPins(
  tx: Queryable,
  pinner: PinnerRef,
  pins: readonly TemplatePin[],
): Promise<void> {
  await dropPins(tx, pinner);
  const seen = new Set<string>();
  for (const pin of pins) {
    const key = `${pin.template_id}@${pin.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    await tx.execute(
      `INSERT INTO template_pins
         (pinner_kind, pinner_id, pinner_version, template_id, template_version)
       VALUES ($1, $2, $3, $4, $5)`,
      [pinner.kind, pinner.id, pinner.version, pin.template_id, pin.version],
    );
  }
}

/** Removes every pin of `pinner` (its version is being purged); answers how many went. */
export function dropPins(tx: Queryable, pinner: PinnerRef): Promise<number> {
  return tx.execute(
    `DELETE FROM template_pins WHERE pinner_kind = $1 AND pinner_id = $2 AND pinner_version = $3`,
    [pinner.kind, pinner.id, pinner.version],
  );
}

/**
 * Who pins template `templateId` (UUID) at `version`, or at any version when omitted: pipeline
 * pinners first, then templates, each by name and version. `name` is the pinner's name; `id` is a
 * pipeline's UUID or a template's name (the ids callers address them by).
 */
export async function pinnersOf(
  tx: Queryable,
  templateId: string,
  version?: number,
): Promise<(Pinner & { pinned_version: number })[]> {
  const params = version === undefined ? [templateId] : [templateId, version];
  const at = version === undefined ? "" : " AND p.template_version = $2";
  const rows = await tx.query<
    {
      kind: string;
      id: string;
      name: string;
      version: number;
      status: string;
      pinned_version: number;
    }
  >(
    `SELECT 'pipeline' AS kind, CAST(e.id AS TEXT) AS id, e.name AS name, v.version AS version,
            v.status AS status, p.template_version AS pinned_version
       FROM template_pins p
       JOIN pipelines e ON e.id = p.pinner_id
       JOIN pipeline_versions v ON v.pipeline_id = p.pinner_id AND v.version = p.pinner_version
      WHERE p.pinner_kind = 'pipeline' AND p.template_id = $1${at}
     UNION ALL
     SELECT 'template' AS kind, e.name AS id, e.name AS name, v.version AS version,
            v.status AS status, p.template_version AS pinned_version
       FROM template_pins p
       JOIN templates e ON e.id = p.pinner_id
       JOIN template_versions v ON v.template_id = p.pinner_id AND v.version = p.pinner_version
      WHERE p.pinner_kind = 'template' AND p.template_id = $1${at}`,
    params,
  );
  return rows
    .map((r) => ({
      kind: r.kind as EntityKind,
      id: String(r.id),
      name: String(r.name),
      version: Number(r.version),
      status: String(r.status) as VersionStatus,
      pinned_version: Number(r.pinned_version),
    }))
    .sort((a, b) =>
      a.kind === b.kind
        ? a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1
        : a.kind === "pipeline"
        ? -1
        : 1
    );
}

/**
 * Finds pins named by template name in `workspaceId`. A name or version not there is in
 * `missing`, in request order; the caller answers its own code for them (`template.validation.
 * import_invalid`, `pipeline.import.missing_template`…). Another workspace's templates are never
 * found.
 */
export async function resolvePins(
  tx: Queryable,
  workspaceId: string,
  requests: readonly PinRequest[],
): Promise<{ resolved: ResolvedPin[]; missing: PinRequest[] }> {
  const resolved: ResolvedPin[] = [];
  const missing: PinRequest[] = [];
  for (const request of requests) {
    const row = Number.isSafeInteger(request.version)
      ? await tx.first<
        { id: string; name: string; type: string; dialect: string | null; status: string }
      >(
        `SELECT t.id, t.name, t.type, t.dialect, v.status
           FROM templates t JOIN template_versions v ON v.template_id = t.id
          WHERE t.workspace_id = $1 AND t.name = $2 AND v.version = $3`,
        [workspaceId, request.id, request.version],
      )
      : undefined;
    if (!row) {
      missing.push(request);
      continue;
    }
    resolved.push({
      template_id: String(row.id),
      version: request.version,
      name: String(row.name),
      type: row.type === "html" ? "html" : "sql",
      dialect: row.dialect === null ? null : String(row.dialect),
      status: String(row.status) as VersionStatus,
    });
  }
  return { resolved, missing };
}
