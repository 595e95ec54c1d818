/**
 * The promotion receiver (docs/promotion.md#the-receiver-routes): the inventory a sender reads
 * before it pushes, and the push, applied in one transaction in closure order (template versions,
 * then child pipelines, then parents), version numbers and body hashes honoured exactly, a local
 * draft never overwritten, an identical re-push a no-op, and any refused entry rolling the whole
 * batch back. Rows are stamped by the system actor; `auth.promotion.accepted` / `.rejected` carry
 * `source_env` and the key's fingerprint, never the key.
 *
 * Decided here:
 * - Push entry refusals answer 400 for a missing datasource, a missing template or a wrong hash and
 *   409 for a version conflict (docs/promotion.md#promoting), although the import route answers 409
 *   for the first three: the push is its own surface.
 * - The answer's `templates` and `pipelines` count the batch's entries; `applied` (additive) counts
 *   what was new here, so an identical re-push answers `applied` zeros.
 * - The fingerprint recorded is the one computed here from the presented key; a body's
 *   `key_fingerprint` that differs is recorded beside it as `claimed_fingerprint`.
 * - A server key opens every workspace of the receiver (it is instance-level, minted by an admin);
 *   the workspace must exist and be active, else 404 `workspace.not_found`.
 * - The inventory adds (additively) each row's `id`, the target's `endpoint_keys` (names of live
 *   endpoint-kind keys pinned to the workspace) and `endpoints` (patterns with their pipeline), so a
 *   sender can refuse `endpoint.promotion.key_missing` and preview endpoint changes before a push.
 */
import { z } from "zod";
import { recordAudit } from "../audit/mod.ts";
import { visibleDatasourceNames } from "../datasources/mod.ts";
import {
  applyPromotedEndpoints,
  endpointKeyNames,
  type LiveEndpoints,
  type PromotedEndpoint,
  type PublishRules,
} from "../endpoints/mod.ts";
import { AppError, toAppError } from "../errors/mod.ts";
import type { Principal, SystemActor } from "../identity/mod.ts";
import { nowIso } from "../lib/time.ts";
import {
  applyReleasedImport,
  bodyRefusal,
  type PipelineService,
  verifyReleasedImport,
} from "../pipelines/mod.ts";
import type { Db, Queryable } from "../store/mod.ts";
import {
  importTemplateVersion,
  type TemplateVersionPayload,
  verifyTemplateVersion,
} from "../templates/mod.ts";
import type { PromotionCaller } from "./keys.ts";
import * as repo from "./repo.ts";
import { orderPipelines, orderTemplates } from "./order.ts";
import type { Inventory, PushResult } from "./views.ts";

const ENTRY_400 = new Set([
  "pipeline.import.missing_datasource",
  "pipeline.import.missing_template",
  "pipeline.import.hash_mismatch",
]);

const endpointSchema = z.strictObject({
  path_pattern: z.string().min(1).max(300),
  pipeline_name: z.string().min(1).max(200),
  timeout_seconds: z.int().min(1).max(86400),
  enabled: z.boolean(),
  description: z.string().max(2000).nullable(),
  bindings: z.array(z.strictObject({
    path: z.string().min(1).max(300),
    key_name: z.string().min(1).max(200),
  })).max(100),
});

const pushSchema = z.object({
  source_env: z.string().min(1).max(200),
  key_fingerprint: z.string().max(200).optional(),
  workspace: z.string().min(1).max(200),
  templates: z.array(z.record(z.string(), z.unknown())).max(1000),
  pipelines: z.array(z.record(z.string(), z.unknown())).max(1000),
  endpoints: z.array(endpointSchema).max(1000).optional(),
});

export interface PromotionReceiverOptions {
  db: Db;
  pipelines: PipelineService;
  live: LiveEndpoints;
  /** The target's publish rules, which every pushed endpoint row passes. */
  publishRules: PublishRules;
  systemActor: SystemActor;
  deploymentName: string;
  authoringEnabled: boolean;
  findWorkspace: (name: string) => Promise<{ id: string; name: string; active: boolean } | null>;
}

export class PromotionReceiver {
  readonly #o: PromotionReceiverOptions;

  constructor(options: PromotionReceiverOptions) {
    this.#o = options;
  }

  get #actor(): Principal {
    const s = this.#o.systemActor;
    return {
      userId: s.id,
      email: s.email,
      displayName: s.displayName,
      provider: "system",
      isSuperAdmin: false,
      authMethod: "API_KEY",
      mustChangePassword: false,
      scopes: [],
    };
  }

  async #workspace(name: string) {
    const ws = await this.#o.findWorkspace(name);
    if (!ws || !ws.active) throw new AppError("workspace.not_found", { workspace: name });
    return ws;
  }

  /** `GET /promotion/inventory?workspace=`. */
  async inventory(workspaceName: string): Promise<Inventory> {
    const ws = await this.#workspace(workspaceName);
    const db = this.#o.db;
    return {
      deployment: this.#o.deploymentName,
      authoring_enabled: this.#o.authoringEnabled,
      workspace: ws.name,
      pipelines: await repo.releasedPipelines(db, ws.id),
      templates: await repo.releasedTemplates(db, ws.id),
      datasources: await visibleDatasourceNames(db, ws.id),
      endpoint_keys: await endpointKeyNames(db, ws.id),
      endpoints: await repo.endpointsIn(db, ws.id),
    };
  }

  /** `POST /promotion/push`: all or nothing; audits the outcome either way. */
  async push(caller: PromotionCaller, input: unknown): Promise<PushResult> {
    const parsed = pushSchema.safeParse(input ?? {});
    const sourceEnv = typeof (input as { source_env?: unknown })?.source_env === "string"
      ? String((input as { source_env: string }).source_env).slice(0, 200)
      : null;
    const audit = (
      db: Queryable,
      event: "auth.promotion.accepted" | "auth.promotion.rejected",
      details: Record<string, unknown>,
      workspaceId: string | null,
    ) =>
      recordAudit(db, {
        event,
        userId: this.#o.systemActor.id,
        provider: "system",
        workspaceId,
        details: {
          source_env: sourceEnv,
          key_fingerprint: caller.fingerprint,
          key_id: caller.keyId,
          via: caller.via,
          ...details,
        },
      });
    let workspaceId: string | null = null;
    try {
      if (!parsed.success) throw bodyRefusal(parsed.error);
      const body = parsed.data;
      const ws = await this.#workspace(body.workspace);
      workspaceId = ws.id;
      // Every hash is checked before the transaction opens: a wrong one refuses the whole batch.
      const templates = orderTemplates(body.templates.map((t, i) => {
        const v = entry(
          `templates[${i}]`,
          () => verifyTemplateVersion(t as unknown as TemplateVersionPayload),
        );
        return { payload: t as unknown as TemplateVersionPayload, name: v.name };
      }));
      const pipelines = orderPipelines(
        body.pipelines.map((p, i) => entry(`pipelines[${i}]`, () => verifyReleasedImport(p))),
      );
      const endpoints = (body.endpoints ?? []) as PromotedEndpoint[];
      const ctx = { actor: this.#actor, workspaceId: ws.id };
      const claimed = body.key_fingerprint !== undefined &&
          body.key_fingerprint !== caller.fingerprint
        ? { claimed_fingerprint: body.key_fingerprint }
        : {};
      const outcome = await this.#o.db.transaction(async (tx) => {
        let templatesApplied = 0;
        let pipelinesApplied = 0;
        for (const t of templates) {
          const r = await inEntry(
            `template ${t.name}`,
            () => importTemplateVersion(tx, { ...ctx, tx }, t.payload),
          );
          if (r.created) templatesApplied++;
        }
        for (const p of pipelines) {
          const r = await inEntry(
            `pipeline ${p.body.name}`,
            () => applyReleasedImport(this.#o.pipelines, tx, { ...ctx, tx }, p),
          );
          if (r.created || r.applied) pipelinesApplied++;
        }
        const endpointsChanged = await applyPromotedEndpoints(
          tx,
          {
            workspaceId: ws.id,
            actorId: this.#o.systemActor.id,
            provider: "system",
            rules: this.#o.publishRules,
          },
          endpoints,
          (name) => repo.pipelineIdByName(tx, ws.id, name),
          nowIso(),
        );
        const result: PushResult = {
          workspace: ws.name,
          source_env: body.source_env,
          templates: templates.length,
          pipelines: pipelines.length,
          endpoints: endpoints.length,
          applied: {
            templates: templatesApplied,
            pipelines: pipelinesApplied,
            endpoints: endpointsChanged,
          },
        };
        await audit(tx, "auth.promotion.accepted", {
          ...claimed,
          templates: templates.map((t) => ({ name: t.name, version: t.payload.version })),
          pipelines: pipelines.map((p) => ({ name: p.body.name, version: p.version })),
          endpoints: endpoints.map((e) => e.path_pattern),
          applied: result.applied,
        }, ws.id);
        return result;
      });
      // Imported releases change what published endpoints serve, here and on every replica.
      if (outcome.applied.pipelines > 0) await this.#o.pipelines.lifecycle.changed();
      if (outcome.applied.endpoints > 0) await this.#o.live.changed();
      return outcome;
    } catch (e) {
      const code = toAppError(e).code;
      await audit(this.#o.db, "auth.promotion.rejected", {
        reason: code,
        ...(e instanceof AppError ? { error: e.details } : {}),
      }, workspaceId).catch(() => undefined);
      throw e;
    }
  }
}

/** Runs a check of one entry; the push's entry refusals answer 400. */
function entry<T>(at: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw refine(e, at);
  }
}

async function inEntry<T>(at: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw refine(e, at);
  }
}

function refine(e: unknown, at: string): unknown {
  if (!(e instanceof AppError)) return e;
  const status = ENTRY_400.has(e.code) ? 400 : e.status;
  // deno-lint-ignore no-explicit-any
  return new AppError(e.code as any, { ...e.details, entry: at }, e.headers, { status });
}
