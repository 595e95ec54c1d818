/**
 * The promotion sender (docs/promotion.md#promoting): `POST /promotion/promote` builds the closure
 * of one pipeline's current release, reads the target's inventory, refuses before anything is sent
 * (`pipeline.promotion.not_released`, `.target_is_authoring`, `.not_newer`, `.missing_datasources`,
 * `endpoint.promotion.key_missing`), then pushes the batch. The preview runs the same steps and
 * stops before the push.
 *
 * The target is `service.deployment.promotion.target-url`; its key is read at every promotion from
 * `target-key-file` when set (so a rotated key is picked up without a restart), else `target-key`.
 *
 * Decided here:
 * - `not_newer`: the target's latest release of the root pipeline is the one sent or above it
 *   (docs/decisions.md#only-newer-releases-are-promoted). A re-promotion of the release the target
 *   has is refused like an older one, so endpoint changes travel with a newer release. Children and
 *   templates of the closure are not compared: the receiver applies what it lacks and leaves
 *   identical versions alone.
 * - A refusal the target answers (its error envelope) is answered here with the same code and
 *   status, its details under `target_details`; an unreachable target or an unknown answer is 502
 *   `pipeline.promotion.target_unreachable`. A target answering 401 is reported that way too
 *   (`status: 401`): the sender's key is wrong, not the caller's credential.
 * - A promotion writes `pipeline.promoted` into the sender's audit log with the target's answer.
 * - Rotation: a 401 from the target re-reads `target-key-file` once and, when the key changed,
 *   retries the same request with the new key (the rotation order "mint, set on the sender, revoke"
 *   can revoke the old key while a promotion that read it is in flight).
 */
import { recordAudit } from "../audit/mod.ts";
import { missingKey, promotedEndpointsOf } from "../endpoints/mod.ts";
import { AppError, catalogue, type ErrorCode } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { PipelineService } from "../pipelines/mod.ts";
import type { Db } from "../store/mod.ts";
import type { TemplateService } from "../templates/mod.ts";
import { buildBundle } from "./closure.ts";
import { lastResultColumns } from "./repo.ts";
import { keyFingerprint } from "./keys.ts";
import { diffBundle } from "./diff.ts";
import type { Inventory, PreviewResult, PromoteResult, PushResult } from "./views.ts";

/** What promote and preview refuse with; both front ends (REST and the page) declare this list. */
export const PROMOTION_SENDER_ERRORS = [
  "pipeline.not_found",
  "pipeline.promotion.not_released",
  "pipeline.promotion.not_newer",
  "pipeline.promotion.missing_datasources",
  "pipeline.promotion.target_is_authoring",
  "pipeline.promotion.target_not_configured",
  "pipeline.promotion.target_unreachable",
  "endpoint.promotion.key_missing",
  "pipeline.import.version_conflict",
] as const;

export interface PromotionTarget {
  url?: string;
  key?: string;
  keyFile?: string;
}

export interface PromotionSenderOptions {
  db: Db;
  pipelines: PipelineService;
  templates: TemplateService;
  deploymentName: string;
  target: PromotionTarget;
  /** Per request to the target. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface PromoteContext {
  actor: Principal;
  workspaceId: string;
  workspaceName: string;
}

/** The sending side as a request resolves it: who acts, from which workspace. */
export function promoteContext(actor: Principal, workspace: WorkspaceContext): PromoteContext {
  return { actor, workspaceId: workspace.id, workspaceName: workspace.name };
}

const unreachable = (status: number, reason: string) =>
  new AppError("pipeline.promotion.target_unreachable", { status, reason });

export class PromotionSender {
  readonly #o: PromotionSenderOptions;

  constructor(options: PromotionSenderOptions) {
    this.#o = options;
  }

  /**
   * Whether a target is set (its URL, and a key or a key file), so the UI offers promotion only
   * where it could be tried; an unreadable or empty key file is still refused at the promotion.
   */
  get configured(): boolean {
    const { url, key, keyFile } = this.#o.target;
    return Boolean(url && (key || keyFile));
  }

  async #target(): Promise<{ url: string; key: string }> {
    const { url, key, keyFile } = this.#o.target;
    let presented = key;
    if (keyFile) {
      presented = (await Deno.readTextFile(keyFile).catch(() => "")).trim() || undefined;
    }
    if (!url || !presented) throw new AppError("pipeline.promotion.target_not_configured");
    return { url: url.replace(/\/+$/, ""), key: presented };
  }

  async #call<T>(
    target: { url: string; key: string },
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    retried = false,
  ): Promise<T> {
    let res: Response;
    try {
      res = await (this.#o.fetch ?? fetch)(target.url + path, {
        method,
        headers: {
          "SVC-Promotion-Key": target.key,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.#o.timeoutMs ?? 60_000),
      });
    } catch (e) {
      throw unreachable(0, e instanceof Error ? e.message : String(e));
    }
    const text = await res.text();
    let parsed: { data?: T; error?: { code?: string; message?: string; details?: unknown } };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw unreachable(res.status, `not a JSON answer (${text.slice(0, 120)})`);
    }
    if (res.ok && parsed.data !== undefined) return parsed.data;
    const code = parsed.error?.code;
    if (res.status === 401) {
      // A rotation may have replaced the key file between our read and the target's revocation of
      // the old key: read it once more and retry with the new key, so no promotion is lost.
      const fresh = this.#o.target.keyFile && !retried ? (await this.#target()).key : undefined;
      if (fresh && fresh !== target.key) {
        target.key = fresh;
        return await this.#call<T>(target, method, path, body, true);
      }
      throw unreachable(401, "the target refused the promotion key");
    }
    if (code && code in catalogue && res.status >= 400 && res.status < 500) {
      throw new AppError(
        code as ErrorCode,
        // deno-lint-ignore no-explicit-any
        { ...(parsed.error?.details as any ?? {}), target_details: parsed.error?.details ?? {} },
        {},
        { status: res.status },
      );
    }
    throw unreachable(res.status, parsed.error?.message ?? "unexpected answer");
  }

  /** The closure, the target's inventory, and every refusal that comes before a push. */
  async #prepare(ctx: PromoteContext, pipelineId: string, includeTemplates: boolean) {
    const bundle = await buildBundle(
      this.#o.pipelines,
      this.#o.templates,
      ctx.workspaceId,
      pipelineId,
      includeTemplates,
    );
    const endpoints = await promotedEndpointsOf(this.#o.db, ctx.workspaceId, bundle.pipelineIds);
    const target = await this.#target();
    const inventory = await this.#call<Inventory>(
      target,
      "GET",
      `/api/v1/promotion/inventory?workspace=${encodeURIComponent(ctx.workspaceName)}`,
    );
    if (inventory.authoring_enabled) {
      throw new AppError("pipeline.promotion.target_is_authoring", {
        target: inventory.deployment,
      });
    }
    const there = inventory.pipelines.find((p) => p.name === bundle.root.name);
    if (there && there.current_version >= bundle.root.version) {
      throw new AppError("pipeline.promotion.not_newer", {
        name: bundle.root.name,
        version: bundle.root.version,
        target: inventory.deployment,
        target_version: there.current_version,
        target_body_hash: there.body_hash,
      });
    }
    const missing = bundle.datasources.filter((d) => !inventory.datasources.includes(d));
    if (missing.length > 0) {
      throw new AppError("pipeline.promotion.missing_datasources", {
        workspace: inventory.workspace,
        missing,
      });
    }
    const lacking = missingKey(endpoints, inventory.endpoint_keys ?? []);
    if (lacking) throw new AppError("endpoint.promotion.key_missing", lacking);
    return { bundle, endpoints, target, inventory, there };
  }

  /** `POST /promotion/promote`. */
  async promote(
    ctx: PromoteContext,
    pipelineId: string,
    includeTemplates = true,
  ): Promise<PromoteResult> {
    const { bundle, endpoints, target, inventory, there } = await this.#prepare(
      ctx,
      pipelineId,
      includeTemplates,
    );
    const pushed = await this.#call<PushResult>(target, "POST", "/api/v1/promotion/push", {
      source_env: this.#o.deploymentName,
      key_fingerprint: keyFingerprint(target.key),
      workspace: ctx.workspaceName,
      templates: bundle.templates,
      pipelines: bundle.pipelines,
      endpoints,
    });
    const diff = diffBundle(bundle, endpoints, inventory);
    const result: PromoteResult = {
      target: inventory.deployment,
      workspace: inventory.workspace,
      pipeline: bundle.root,
      previous_version: there?.current_version ?? null,
      pushed,
      changes: {
        pipelines: diff.pipelines.map((p) => ({
          name: p.name,
          target_version: p.target_version,
          new_version: p.new_version,
          change: p.change,
          published_on_target: p.published_on_target,
        })),
        templates: diff.templates,
        endpoints: diff.endpoints,
      },
    };
    const { changes: _entries, ...recorded } = result;
    await recordAudit(this.#o.db, {
      event: "pipeline.promoted",
      userId: ctx.actor.userId,
      provider: ctx.actor.provider,
      workspaceId: ctx.workspaceId,
      details: { ...recorded, key_fingerprint: keyFingerprint(target.key) },
    });
    return result;
  }

  /** `GET /promotion/preview`: the same refusals, then the diff; the target is not changed. */
  async preview(
    ctx: PromoteContext,
    pipelineId: string,
    includeTemplates = true,
  ): Promise<PreviewResult> {
    const { bundle, endpoints, inventory } = await this.#prepare(
      ctx,
      pipelineId,
      includeTemplates,
    );
    const resultColumns = new Map<string, { name: string; type: string }[] | null>();
    for (const p of bundle.pipelines) {
      const key = `${p.id}@${p.version}`;
      resultColumns.set(key, await lastResultColumns(this.#o.db, String(p.id), Number(p.version)));
    }
    return diffBundle({ ...bundle, resultColumns }, endpoints, inventory);
  }
}
