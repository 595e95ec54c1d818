/**
 * Managing published endpoints (docs/endpoints.md#publishing): publish, read, list, unpublish,
 * enable and disable, and binding the caller's endpoint-kind keys to nodes of the endpoint tree.
 * Every act writes its audit row in the change's transaction and is announced to every instance's
 * matcher after the commit. The route-level operation (author) is the front end's; this service
 * checks the workspace of everything it touches.
 *
 * Decided here:
 * - `timeout_seconds` defaults to 30 (docs/decisions.md#endpoint-timeouts) before the clamp to the
 *   two settings.
 * - An identical pattern is a conflict like any overlap (409 `endpoint.path_conflict`).
 * - Patterns of disabled endpoints still take part in the conflict rule: enabling must never
 *   make two endpoints answer one URL.
 * - Audit events: `endpoint.published`, `endpoint.unpublished`, `endpoint.enabled`,
 *   `endpoint.disabled`, and the documented `endpoint.key_bound` / `endpoint.key_unbound`.
 * - Bind names the key among the caller's live keys pinned to the acting workspace: none is 404
 *   `endpoint.key_not_found`, only a non-endpoint kind is 403 `endpoint.key_kind_refused`, two
 *   endpoint keys of that name 409 `endpoint.key_name_ambiguous`. Binding a node already bound is
 *   a no-op (`already_bound: true`, no audit row); unbinding an absent binding is 404.
 */
import { z } from "zod";
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import {
  findOwnLiveKeysByName,
  KEY_PREFIX,
  liveEndpointKeyBindings,
  setKeyBindings,
} from "../identity/mod.ts";
import type { Principal } from "../identity/mod.ts";
import { newId } from "../lib/ids.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { isUniqueViolation } from "../store/mod.ts";
import type { LiveEndpoints } from "./live.ts";
import { appliesTo, parseNode, parsePattern } from "./path.ts";
import {
  checkPublishable,
  DEFAULT_TIMEOUT_SECONDS,
  pathConflict,
  type PublishRules,
  refuseConflict,
} from "./publish_rules.ts";
import * as repo from "./repo.ts";
import type { BindingView, EndpointView } from "./views.ts";
import type { Counted, Page } from "../lib/paged_view.ts";

export { DEFAULT_TIMEOUT_SECONDS } from "./publish_rules.ts";
const BINDINGS_MAX = 100;

/** Who acts and in which workspace. */
export interface EndpointContext {
  actor: Principal;
  workspaceId: string;
}

/** The endpoint record (docs/endpoints.md#publishing). */
/** `released` and the timeout bounds are the publish rules (publish_rules.ts). */
export interface EndpointServiceOptions extends PublishRules {
  db: Db;
  live: LiveEndpoints;
  now?: () => number;
}

const publishBody = z.strictObject({
  path_pattern: z.unknown(),
  pipeline_id: z.string().min(1).max(200),
  timeout_seconds: z.int().optional(),
  description: z.string().max(2000).nullable().optional(),
  enabled: z.boolean().optional(),
});
const bindBody = z.strictObject({ path: z.unknown(), key_name: z.string().min(1).max(200) });
const enabledBody = z.strictObject({ enabled: z.boolean() });

function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new AppError("pipeline.execution.invalid_parameter_type", {
    field: issue.path.map(String).join(".") || "body",
    reason: issue.message,
  });
}

export class EndpointService {
  readonly #o: EndpointServiceOptions;
  readonly #now: () => number;

  constructor(options: EndpointServiceOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  #stamp(): string {
    return new Date(this.#now()).toISOString();
  }

  /** What `timeout_seconds` is clamped to, and what an absent one becomes (for forms to say). */
  get timeouts(): { min: number; max: number; default: number } {
    const { timeoutMinSeconds: min, timeoutMaxSeconds: max } = this.#o;
    return { min, max, default: Math.min(max, Math.max(min, DEFAULT_TIMEOUT_SECONDS)) };
  }

  /** Publishes a released, side-effect-free pipeline under a new pattern (201). */
  async publish(ctx: EndpointContext, input: unknown): Promise<EndpointView> {
    const body = parse(publishBody, input);
    const { pattern, released, timeoutSeconds } = await checkPublishable(this.#o, {
      workspaceId: ctx.workspaceId,
      pipelineId: body.pipeline_id,
      pathPattern: body.path_pattern,
      timeoutSeconds: body.timeout_seconds,
    });
    const at = this.#stamp();
    const row = {
      id: newId(),
      path_pattern: pattern.text,
      workspace_id: ctx.workspaceId,
      pipeline_id: body.pipeline_id,
      timeout_seconds: timeoutSeconds,
      enabled: body.enabled ?? true,
      description: body.description ?? null,
      created_by: ctx.actor.userId,
      created_at: at,
      updated_at: at,
    };
    try {
      await this.#o.db.transaction(async (tx) => {
        await repo.lockForPublish(tx);
        await refuseConflict(tx, pattern);
        await repo.insertEndpoint(tx, row);
        await this.#audit(tx, ctx, "endpoint.published", {
          path_pattern: row.path_pattern,
          pipeline_id: row.pipeline_id,
          pipeline_version: released.version,
          timeout_seconds: row.timeout_seconds,
          enabled: row.enabled,
        });
      });
    } catch (e) {
      // Another workspace's identical pattern committed between our read and insert.
      if (isUniqueViolation(e)) throw pathConflict(pattern.text, pattern.text);
      throw e;
    }
    await this.#o.live.changed();
    return await this.get(ctx, pattern.text);
  }

  /** One endpoint of the workspace by its pattern; another workspace's is not found. */
  async get(ctx: EndpointContext, path: unknown): Promise<EndpointView> {
    const row = await this.#find(this.#o.db, ctx, path);
    return (await this.#views([row]))[0];
  }

  /** A page of the workspace's endpoints, by pattern, with the exact total. */
  async list(
    ctx: EndpointContext,
    page: Page,
  ): Promise<Counted<EndpointView>> {
    const { items: rows, total } = await repo.listInWorkspace(this.#o.db, ctx.workspaceId, page);
    return { items: await this.#views(rows), total };
  }

  /** The release a call to an endpoint over `pipelineId` runs now; null when none would run. */
  async servedRelease(ctx: EndpointContext, pipelineId: string): Promise<number | null> {
    const version = await this.#o.released.latestVersion(ctx.workspaceId, pipelineId);
    return typeof version === "number" ? version : null;
  }

  /**
   * The workspace's endpoints over one pipeline, by pattern: whom a version move (release,
   * discard, restore) changes, which a page names before it acts.
   */
  async overPipeline(
    ctx: EndpointContext,
    pipelineId: string,
  ): Promise<{ path_pattern: string; enabled: boolean }[]> {
    const rows = await repo.listForPipeline(this.#o.db, ctx.workspaceId, pipelineId);
    return rows.map((r) => ({ path_pattern: r.path_pattern, enabled: r.enabled }));
  }

  /** Removes an endpoint; its URL answers 404 at once on every instance. */
  async unpublish(ctx: EndpointContext, path: unknown): Promise<void> {
    await this.#o.db.transaction(async (tx) => {
      const row = await this.#find(tx, ctx, path);
      await repo.deleteEndpoint(tx, row.id);
      await this.#audit(tx, ctx, "endpoint.unpublished", {
        path_pattern: row.path_pattern,
        pipeline_id: row.pipeline_id,
      });
    });
    await this.#o.live.changed();
  }

  /** `PUT /endpoints?path=` with `{enabled}`; a disabled endpoint answers like an unknown path. */
  async setEnabled(ctx: EndpointContext, path: unknown, input: unknown): Promise<EndpointView> {
    const { enabled } = parse(enabledBody, input);
    const changed = await this.#o.db.transaction(async (tx) => {
      const row = await this.#find(tx, ctx, path);
      if (row.enabled === enabled) return false;
      await repo.setEnabled(tx, row.id, enabled, this.#stamp());
      await this.#audit(tx, ctx, enabled ? "endpoint.enabled" : "endpoint.disabled", {
        path_pattern: row.path_pattern,
      });
      return true;
    });
    if (changed) await this.#o.live.changed();
    return await this.get(ctx, path);
  }

  /** Binds one of the caller's endpoint-kind keys, by name, to a node of the endpoint tree. */
  async bind(ctx: EndpointContext, input: unknown): Promise<BindingView> {
    const { path, key_name } = parse(bindBody, input);
    const node = parseNode(path);
    const outcome = await this.#o.db.transaction(async (tx): Promise<BindingView> => {
      const key = await this.#ownEndpointKey(tx, ctx, key_name);
      const view = { path: node.text, key_id: KEY_PREFIX + key.id, key_name: key.name };
      if (key.bindings.some((b) => sameNode(b.path, node.key))) {
        return { ...view, already_bound: true };
      }
      if (key.bindings.length >= BINDINGS_MAX) {
        throw new AppError("pipeline.execution.invalid_parameter_type", {
          field: "key_name",
          reason: `the key already has ${BINDINGS_MAX} bindings`,
        });
      }
      await setKeyBindings(tx, key.id, [...key.bindings, { path: node.text }]);
      await this.#audit(tx, ctx, "endpoint.key_bound", view);
      return view;
    });
    if (!outcome.already_bound) await this.#o.live.changed();
    return outcome;
  }

  /** Removes a binding of one of the caller's endpoint-kind keys. */
  async unbind(ctx: EndpointContext, input: unknown): Promise<void> {
    const { path, key_name } = parse(bindBody, input);
    const node = parseNode(path);
    await this.#o.db.transaction(async (tx) => {
      const key = await this.#ownEndpointKey(tx, ctx, key_name);
      const kept = key.bindings.filter((b) => !sameNode(b.path, node.key));
      if (kept.length === key.bindings.length) {
        throw new AppError("endpoint.binding_not_found", { path: node.text, key_name });
      }
      await setKeyBindings(tx, key.id, kept);
      await this.#audit(tx, ctx, "endpoint.key_unbound", {
        path: node.text,
        key_id: KEY_PREFIX + key.id,
        key_name: key.name,
      });
    });
    await this.#o.live.changed();
  }

  async #ownEndpointKey(tx: Queryable, ctx: EndpointContext, keyName: string) {
    const keys = (await findOwnLiveKeysByName(tx, ctx.actor.userId, keyName))
      .filter((k) => k.workspace_id === ctx.workspaceId);
    const endpointKeys = keys.filter((k) => k.kind === "endpoint");
    if (endpointKeys.length === 1) return endpointKeys[0];
    if (endpointKeys.length > 1) {
      throw new AppError("endpoint.key_name_ambiguous", {
        key_name: keyName,
        count: endpointKeys.length,
      });
    }
    if (keys.length > 0) {
      throw new AppError("endpoint.key_kind_refused", {
        reason: "bindings_not_allowed",
        kind: keys[0].kind,
      });
    }
    throw new AppError("endpoint.key_not_found", { key_name: keyName });
  }

  async #find(db: Queryable, ctx: EndpointContext, path: unknown): Promise<repo.EndpointRow> {
    const pattern = parsePattern(path);
    const row = await repo.findByPattern(db, pattern.text);
    if (!row || row.workspace_id !== ctx.workspaceId) {
      throw new AppError("endpoint.not_found", { path: pattern.text });
    }
    return row;
  }

  async #views(rows: repo.EndpointRow[]): Promise<EndpointView[]> {
    if (rows.length === 0) return [];
    const keys = await liveEndpointKeyBindings(this.#o.db);
    return rows.map((row) => {
      const pattern = parsePattern(row.path_pattern).segments;
      const bindings = keys
        .filter((k) => k.workspace_id === row.workspace_id)
        .flatMap((k) =>
          k.bindings.flatMap((b) => {
            const node = nodeOf(b.path);
            return node && appliesTo(node.segments, pattern)
              ? [{
                depth: node.segments.length,
                path: b.path,
                key_id: KEY_PREFIX + k.id,
                key_name: k.name,
              }]
              : [];
          })
        )
        .sort((a, b) =>
          b.depth - a.depth || a.path.localeCompare(b.path) || a.key_name.localeCompare(b.key_name)
        )
        .map(({ depth: _, ...b }) => b);
      return {
        path_pattern: row.path_pattern,
        pipeline_id: row.pipeline_id,
        pipeline_name: row.pipeline_name,
        workspace: row.workspace,
        timeout_seconds: row.timeout_seconds,
        enabled: row.enabled,
        description: row.description,
        created_by: row.created_by,
        created_at: row.created_at,
        updated_at: row.updated_at,
        bindings,
      };
    });
  }

  /**
   * An endpoint-kind key reads only the executions it started, proved by the `endpoint.served`
   * row pairing the two; anything else is the same 404 as an unknown id. Other principals pass.
   */
  async mayReadExecution(actor: Principal, executionId: string): Promise<void> {
    if (actor.keyKind !== "endpoint") return;
    if (!(await repo.keyStartedExecution(this.#o.db, actor.keyId ?? "", executionId))) {
      throw new AppError("result.execution_not_found", { execution_id: executionId });
    }
  }

  async #audit(
    tx: Queryable,
    ctx: EndpointContext,
    event: AuditEventName,
    details: Record<string, unknown>,
  ): Promise<void> {
    await recordAudit(tx, {
      event,
      userId: ctx.actor.userId,
      provider: ctx.actor.provider,
      workspaceId: ctx.workspaceId,
      details: ctx.actor.keyId ? { ...details, via_key_id: ctx.actor.keyId } : details,
    });
  }
}

/** Whether a stored binding path names the tree node `key`. */
function sameNode(path: string, key: string): boolean {
  return nodeOf(path)?.key === key;
}

/** A stored binding path's node; one that no longer parses names none. */
function nodeOf(path: string): ReturnType<typeof parseNode> | null {
  try {
    return parseNode(path);
  } catch {
    return null;
  }
}
