/**
 * Who depends on a pipeline version: live parents exact-pinning it (the discard refusal
 * `pipeline.version.pinned`) and the draft-only templates it alone pins (the entity delete's
 * `include_exclusive_draft_templates`).
 */
import type { Queryable } from "../store/mod.ts";
import type { HookContext, Pinner } from "../versions/mod.ts";

/** Live (DRAFT or RELEASED) versions of other pipelines whose PIPELINE node exact-pins this one. */
export async function livePinners(tx: Queryable, h: HookContext): Promise<Pinner[]> {
  const rows = await tx.query<
    { id: string; name: string; version: number; status: string; body: string }
  >(
    `SELECT CAST(p.id AS TEXT) AS id, p.name, v.version, v.status, v.body
       FROM pipeline_versions v JOIN pipelines p ON p.id = v.pipeline_id
      WHERE p.workspace_id = $1 AND v.status IN ('DRAFT', 'RELEASED') AND v.body LIKE $2`,
    [h.entity.workspace_id, `%${h.entity.id}%`],
  );
  return rows.filter((r) =>
    ((JSON.parse(String(r.body)).nodes ?? []) as { pipeline?: { id: string; version?: number } }[])
      .some((n) => n.pipeline?.id === h.entity.id && n.pipeline.version === h.version.version)
  ).map((r) => ({
    kind: "pipeline" as const,
    id: String(r.id),
    name: String(r.name),
    version: Number(r.version),
    status: r.status as "DRAFT" | "RELEASED",
  }));
}

/** Template entities whose sole version is a draft pinned only by this pipeline. */
export async function exclusiveDraftTemplates(
  tx: Queryable,
  pipelineId: string,
): Promise<string[]> {
  const rows = await tx.query<{ name: string }>(
    `SELECT DISTINCT t.name FROM template_pins p
       JOIN templates t ON t.id = p.template_id
      WHERE p.pinner_kind = 'pipeline' AND p.pinner_id = $1
        AND NOT EXISTS (SELECT 1 FROM template_versions v
                         WHERE v.template_id = t.id AND v.status <> 'DRAFT')
        AND NOT EXISTS (SELECT 1 FROM template_pins o WHERE o.template_id = t.id
                         AND NOT (o.pinner_kind = 'pipeline' AND o.pinner_id = $1))
      ORDER BY t.name`,
    [pipelineId],
  );
  return rows.map((r) => String(r.name));
}
