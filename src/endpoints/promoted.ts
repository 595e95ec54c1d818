/**
 * Published endpoints travelling with a promotion (docs/decisions.md#what-a-promotion-carries): the
 * sender reads the rows that serve pipelines of the batch, with every binding that decides their
 * access named by key name; the receiver writes them inside the push's one transaction.
 *
 * Every pushed row passes the target's publish rules (publish_rules.ts) as a publish there would,
 * against the release the push leaves serving; any refusal refuses the batch with publish's code,
 * and the timeout is clamped to the target's bounds.
 *
 * Decided here:
 * - An endpoint is matched on the target by its pattern (unique deployment-wide). A pattern held by
 *   another workspace of the target, or one that would overlap another pattern there, refuses the
 *   batch with 409 `endpoint.path_conflict`.
 * - An existing row of the same workspace adopts the pipeline, timeout, description and enabled
 *   state the sender has; nothing else of the target's endpoints is removed.
 * - A binding names a key by name; the target's live endpoint-kind keys of that name pinned to the
 *   workspace (whoever owns them: the push has no person) receive the binding. None is 409
 *   `endpoint.promotion.key_missing`, which the sender also checks before it sends anything.
 * - Bindings the target has beyond the sender's are kept (the target may be stricter).
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { KEY_PREFIX, liveEndpointKeysIn, setKeyBindings } from "../identity/mod.ts";
import { newId } from "../lib/ids.ts";
import type { Queryable } from "../store/mod.ts";
import { appliesTo, parseNode, parsePattern, type Segment } from "./path.ts";
import {
  checkPublishable,
  pathConflict,
  type PublishRules,
  refuseConflict,
} from "./publish_rules.ts";
import * as repo from "./repo.ts";

/** An endpoint row as a promotion carries it: the pipeline by name, bindings by key name. */
export interface PromotedEndpoint {
  path_pattern: string;
  pipeline_name: string;
  timeout_seconds: number;
  enabled: boolean;
  description: string | null;
  bindings: { path: string; key_name: string }[];
}

function sameNode(path: string, key: string): boolean {
  try {
    return parseNode(path).key === key;
  } catch {
    return false;
  }
}

/** Whether a stored binding decides for some URL of the pattern (it travels with the endpoint). */
function appliesToPattern(path: string, pattern: Segment[]): boolean {
  try {
    return appliesTo(parseNode(path).segments, pattern);
  } catch {
    return false;
  }
}

/** The endpoints of a workspace serving any of `pipelineIds`, as a promotion carries them. */
export async function promotedEndpointsOf(
  db: Queryable,
  workspaceId: string,
  pipelineIds: readonly string[],
): Promise<PromotedEndpoint[]> {
  if (pipelineIds.length === 0) return [];
  const { items: rows } = await repo.listInWorkspace(db, workspaceId, {
    offset: 0,
    limit: 100_000,
  });
  const keys = await liveEndpointKeysIn(db, workspaceId);
  return rows.filter((r) => pipelineIds.includes(r.pipeline_id) && r.pipeline_name)
    .map((row) => {
      const pattern = parsePattern(row.path_pattern).segments;
      const bindings = keys.flatMap((k) =>
        k.bindings.filter((b) => appliesToPattern(b.path, pattern))
          .map((b) => ({ path: b.path, key_name: k.name }))
      ).sort((a, b) => a.path.localeCompare(b.path) || a.key_name.localeCompare(b.key_name));
      return {
        path_pattern: row.path_pattern,
        pipeline_name: row.pipeline_name!,
        timeout_seconds: row.timeout_seconds,
        enabled: row.enabled,
        description: row.description,
        bindings: dedupe(bindings),
      };
    });
}

function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = JSON.stringify(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** The names of the live endpoint-kind keys pinned to a workspace (a promotion inventory). */
export async function endpointKeyNames(db: Queryable, workspaceId: string): Promise<string[]> {
  const names = (await liveEndpointKeysIn(db, workspaceId)).map((k) => k.name);
  return [...new Set(names)].sort();
}

/** The first binding whose key name the target lacks, or undefined. */
export function missingKey(
  endpoints: readonly PromotedEndpoint[],
  keyNames: readonly string[],
): { key_name: string; path: string } | undefined {
  for (const e of endpoints) {
    for (const b of e.bindings) if (!keyNames.includes(b.key_name)) return b;
  }
  return undefined;
}

/**
 * Writes promoted endpoint rows in the push's transaction, after the push's pipelines; `pipelineId`
 * maps a pipeline name to its id here. Answers how many changes were made (the caller announces
 * them after the commit).
 */
export async function applyPromotedEndpoints(
  tx: Queryable,
  ctx: { workspaceId: string; actorId: string; provider: string; rules: PublishRules },
  endpoints: readonly PromotedEndpoint[],
  pipelineId: (name: string) => Promise<string | undefined>,
  at: string,
): Promise<number> {
  if (endpoints.length === 0) return 0;
  await repo.lockForPublish(tx);
  const keys = await liveEndpointKeysIn(tx, ctx.workspaceId);
  let changed = 0;
  for (const e of endpoints) {
    const pipeline = await pipelineId(e.pipeline_name);
    if (!pipeline) {
      throw new AppError("pipeline.not_found", {
        pipeline_id: e.pipeline_name,
        reason: "the endpoint's pipeline is neither in the batch nor on the target",
      });
    }
    const { pattern, timeoutSeconds } = await checkPublishable(ctx.rules, {
      workspaceId: ctx.workspaceId,
      pipelineId: pipeline,
      pathPattern: e.path_pattern,
      timeoutSeconds: e.timeout_seconds,
    }, tx);
    const existing = await repo.findByPattern(tx, pattern.text);
    if (existing && existing.workspace_id !== ctx.workspaceId) {
      throw pathConflict(pattern.text, existing.path_pattern);
    }
    if (!existing) {
      await refuseConflict(tx, pattern);
      await repo.insertEndpoint(tx, {
        id: newId(),
        path_pattern: pattern.text,
        workspace_id: ctx.workspaceId,
        pipeline_id: pipeline,
        timeout_seconds: timeoutSeconds,
        enabled: e.enabled,
        description: e.description,
        created_by: ctx.actorId,
        created_at: at,
        updated_at: at,
      });
      await audit(tx, ctx, "endpoint.published", { path_pattern: pattern.text, via: "promotion" });
      changed++;
    } else if (
      existing.pipeline_id !== pipeline || existing.timeout_seconds !== timeoutSeconds ||
      existing.enabled !== e.enabled || existing.description !== e.description
    ) {
      await tx.execute(
        `UPDATE endpoints SET pipeline_id = $2, timeout_seconds = $3, enabled = $4,
           description = $5, updated_at = $6 WHERE id = $1`,
        [existing.id, pipeline, timeoutSeconds, e.enabled, e.description, at],
      );
      changed++;
    }
    for (const b of e.bindings) {
      const node = parseNode(b.path);
      const named = keys.filter((k) => k.name === b.key_name);
      if (named.length === 0) {
        throw new AppError("endpoint.promotion.key_missing", {
          key_name: b.key_name,
          path: b.path,
        });
      }
      for (const key of named) {
        if (key.bindings.some((x) => sameNode(x.path, node.key))) continue;
        key.bindings = [...key.bindings, { path: node.text }];
        await setKeyBindings(tx, key.id, key.bindings);
        await audit(tx, ctx, "endpoint.key_bound", {
          path: node.text,
          key_id: KEY_PREFIX + key.id,
          key_name: key.name,
          via: "promotion",
        });
        changed++;
      }
    }
  }
  return changed;
}

function audit(
  tx: Queryable,
  ctx: { workspaceId: string; actorId: string; provider: string },
  event: "endpoint.published" | "endpoint.key_bound",
  details: Record<string, unknown>,
) {
  return recordAudit(tx, {
    event,
    userId: ctx.actorId,
    provider: ctx.provider,
    workspaceId: ctx.workspaceId,
    details,
  });
}
