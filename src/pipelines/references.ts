/**
 * What a pipeline body names outside itself (issue 6 item 10): datasources visible from the
 * pipeline's workspace, template versions of that workspace, child pipelines. Checked at every
 * save, again at release, and at import (with the import's own codes).
 *
 * Decided here:
 * - A template pin naming no template version of the workspace is `pipeline.validation.
 *   node_invalid` (field `template`) at save; import answers `pipeline.import.missing_template`.
 * - A PIPELINE node naming no pipeline of the workspace is `node_invalid` (field `pipeline`).
 * - Release checks name datasources too: an unknown one is `unknown_datasource` with `check_id`.
 * - Self reference is followed through child pins (the exact version, else the child's working
 *   version) to any depth; a path already visited is not walked twice.
 */
import { isReadOnly } from "../datasources/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { type ResolvedPin, resolvePins } from "../templates/mod.ts";
import { type PipelineBody, type PipelineNode, STAGING } from "./body.ts";
import * as repo from "./repo.ts";

export interface References {
  templatePins: ResolvedPin[];
  datasourceRefs: { node_id: string; datasource: string }[];
}

export interface ReferenceCodes {
  missingDatasource?: "pipeline.import.missing_datasource";
  missingTemplate?: "pipeline.import.missing_template";
}

const graph = (reason: string, details: Record<string, unknown>) =>
  new AppError("pipeline.validation.graph_invalid", { reason, ...details });

/**
 * Write-shaped uses (docs/decisions.md#read-only-datasources-refuse-writes-at-save): refused on a
 * `readonly` datasource.
 */
function writes(n: PipelineNode): boolean {
  return n.type === "DML" || n.type === "DDL" || n.output?.target === "datasource";
}

export async function checkReferences(
  tx: Queryable,
  workspaceId: string,
  selfId: string | undefined,
  body: PipelineBody,
  codes: ReferenceCodes = {},
): Promise<References> {
  const datasourceRefs: References["datasourceRefs"] = [];
  const seen = new Map<string, repo.VisibleDatasource | undefined>();
  const lookup = async (name: string) => {
    if (!seen.has(name)) seen.set(name, await repo.visibleDatasource(tx, workspaceId, name));
    return seen.get(name);
  };
  const need = async (name: string, at: Record<string, unknown>, write: boolean) => {
    if (name === STAGING) return;
    const d = await lookup(name);
    if (!d) {
      if (codes.missingDatasource) {
        throw new AppError(codes.missingDatasource, { datasource: name, ...at });
      }
      throw graph("unknown_datasource", { datasource: name, ...at });
    }
    if (write && isReadOnly(d)) throw graph("readonly_datasource", { datasource: name, ...at });
  };
  for (const n of body.nodes) {
    for (const name of [n.source, n.output?.datasource]) {
      if (!name) continue;
      await need(name, { node_id: n.id }, writes(n));
      if (name !== STAGING) datasourceRefs.push({ node_id: n.id, datasource: name });
    }
  }
  for (const c of body.checks) {
    await need(c.datasource, { check_id: c.id }, false);
    datasourceRefs.push({ node_id: `check:${c.id}`, datasource: c.datasource });
  }

  const pinned = body.nodes.filter((n) => n.template);
  const { resolved, missing } = await resolvePins(
    tx,
    workspaceId,
    pinned.map((n) => n.template!),
  );
  if (missing.length > 0) {
    const node = pinned.find((n) => n.template === missing[0])!;
    if (codes.missingTemplate) {
      throw new AppError(codes.missingTemplate, {
        template_id: missing[0].id,
        template_version: missing[0].version,
        node_id: node.id,
      });
    }
    throw new AppError("pipeline.validation.node_invalid", {
      node_id: node.id,
      field: "template",
      reason: `no template ${missing[0].id} at version ${missing[0].version} in this workspace`,
    });
  }
  const html = resolved.findIndex((p) => p.type === "html");
  if (html >= 0) {
    throw graph("html_template", { node_id: pinned[html].id, template_id: resolved[html].name });
  }

  for (const n of body.nodes.filter((n) => n.pipeline)) {
    const child = n.pipeline!;
    const exists = await tx.first(
      "SELECT 1 AS one FROM pipelines WHERE id = $1 AND workspace_id = $2",
      [child.id, workspaceId],
    );
    if (!exists) {
      throw new AppError("pipeline.validation.node_invalid", {
        node_id: n.id,
        field: "pipeline",
        reason: `no pipeline ${child.id} in this workspace`,
      });
    }
    if (selfId && await reaches(tx, child.id, child.version ?? null, selfId)) {
      throw graph("self_reference", { node_id: n.id, pipeline_id: child.id });
    }
  }
  return { templatePins: resolved, datasourceRefs };
}

/** Whether the child pipeline at `version` (working when null) pins `target` at any depth. */
async function reaches(
  tx: Queryable,
  id: string,
  version: number | null,
  target: string,
): Promise<boolean> {
  const visited = new Set<string>();
  const queue: [string, number | null][] = [[id, version]];
  while (queue.length > 0) {
    const [at, v] = queue.shift()!;
    if (at === target) return true;
    const key = `${at}@${v}`;
    if (visited.has(key)) continue;
    visited.add(key);
    const body = await repo.bodyOf(tx, at, v);
    const nodes = (body?.nodes ?? []) as PipelineNode[];
    for (const n of nodes) if (n.pipeline) queue.push([n.pipeline.id, n.pipeline.version ?? null]);
  }
  return false;
}
