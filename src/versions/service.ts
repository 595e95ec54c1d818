/**
 * One version lifecycle (docs/authoring.md#versions) for one kind of entity. The pipelines and
 * templates services each construct one over their {@link KindDescriptor} and wrap it with their
 * own validation; the state machine, the optimistic concurrency and the audit rows live here so
 * both kinds behave alike. Every write runs in its own transaction unless `ctx.tx` joins an outer
 * one (a pipeline release cascading its pinned templates runs the templates' releases inside its
 * own).
 *
 * Posture: `authoringEnabled: false` (the hardened posture) refuses create, update, release,
 * discard, restore, both purges and the entity delete with 403 `pipeline.authoring.disabled`; a
 * switch of the current version is still allowed, onto a RELEASED version only. See
 * transitions.ts for the table and the reasoning.
 */
import type { Db, Queryable } from "../store/mod.ts";
import { type Engine, guardPosture } from "./engine.ts";
import * as lifecycle from "./lifecycle.ts";
import * as pointer from "./pointer.ts";
import * as purge from "./purge.ts";
import { readEntity, readVersion, readVersions } from "./reads.ts";
import * as repo from "./repo.ts";
import { TRANSITIONS, type Trigger } from "./transitions.ts";
import type {
  EntityRow,
  EntityView,
  KindDescriptor,
  LifecycleHooks,
  OpContext,
  Posture,
  PurgeResult,
  SaveResult,
  TransitionResult,
  VersionMeta,
  VersionRow,
} from "./types.ts";

/** Construction options of {@link VersionLifecycle}. */
export interface VersionLifecycleOptions {
  db: Db;
  kind: KindDescriptor;
  /** `service.deployment.authoring-enabled`; false is the hardened posture. */
  authoringEnabled: boolean;
  hooks?: Partial<LifecycleHooks>;
}

/** The lifecycle of one kind over one store; one per process and kind. */
export class VersionLifecycle {
  readonly kind: KindDescriptor;
  readonly posture: Posture;
  readonly #db: Db;
  readonly #engine: Engine;
  readonly #listeners: (() => void | Promise<void>)[] = [];

  constructor(options: VersionLifecycleOptions) {
    this.#db = options.db;
    this.kind = options.kind;
    this.posture = options.authoringEnabled ? "development" : "hardened";
    this.#engine = {
      kind: options.kind,
      posture: this.posture,
      hooks: {
        beforeRelease: [...(options.hooks?.beforeRelease ?? [])],
        pinnedBy: [...(options.hooks?.pinnedBy ?? [])],
        beforePurge: [...(options.hooks?.beforePurge ?? [])],
      },
    };
  }

  /**
   * 403 `pipeline.authoring.disabled` when the hardened posture refuses `trigger` whatever the
   * target, before anything is read. Every operation checks this itself; a kind that must find its
   * entity first (templates are named, not numbered) calls it up front so an unknown name under
   * the hardened posture answers 403 like a known one, as pipelines do.
   */
  guardAuthoring(trigger: Trigger): void {
    const refused = TRANSITIONS.find((r) => r.trigger === trigger && r.hardened === "refused");
    if (refused) guardPosture(this.#engine, refused);
  }

  /**
   * Registers a hook after construction: a higher domain plugs into a lower one (pipelines answer
   * the templates' `pinnedBy`). Returns a function that removes it.
   */
  addHook<P extends keyof LifecycleHooks>(point: P, hook: LifecycleHooks[P][number]): () => void {
    const list = this.#engine.hooks[point] as unknown[];
    list.push(hook);
    return () => {
      const i = list.indexOf(hook);
      if (i >= 0) list.splice(i, 1);
    };
  }

  /**
   * Calls `listen` after every committed write of this kind (what is cached from the store, such
   * as a published endpoint's verdict, follows it). Returns a function that removes it.
   */
  onChange(listen: () => void | Promise<void>): () => void {
    this.#listeners.push(listen);
    return () => {
      const i = this.#listeners.indexOf(listen);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /**
   * Tells the listeners that writes committed. Writes in their own transaction do it themselves; a
   * caller that ran them inside its transaction (`ctx.tx`) calls this once that one commits.
   */
  async changed(): Promise<void> {
    for (const listen of this.#listeners) await listen();
  }

  async #run<T>(ctx: OpContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (ctx.tx) return await fn(ctx.tx);
    const result = await this.#db.transaction(fn);
    await this.changed();
    return result;
  }

  // --- writes -----------------------------------------------------------------------------------

  /** A new entity at DRAFT version 1, pointer null; `*.validation.duplicate_name` when taken. */
  create(ctx: OpContext, input: lifecycle.CreateInput): Promise<SaveResult> {
    return this.#run(ctx, (tx) => lifecycle.create(tx, this.#engine, ctx, input));
  }

  /**
   * Saves a full body against `ifMatch`: overwrites the draft, or opens DRAFT max+1 from the
   * current release, or (identical to that release, no draft) changes nothing and reports it.
   */
  update(
    ctx: OpContext,
    id: string,
    ifMatch: string | null | undefined,
    input: lifecycle.UpdateInput,
  ): Promise<SaveResult> {
    return this.#run(ctx, (tx) => lifecycle.update(tx, this.#engine, ctx, id, ifMatch, input));
  }

  /** Releases the draft whose hash is `ifMatch`, after the release hooks; the pointer moves. */
  release(
    ctx: OpContext,
    id: string,
    ifMatch: string | null | undefined,
    options?: lifecycle.ReleaseOptions,
  ): Promise<TransitionResult> {
    return this.#run(ctx, (tx) => lifecycle.release(tx, this.#engine, ctx, id, ifMatch, options));
  }

  /** RELEASED → DISCARDED unless pinned; the pointer is recomputed when it held it. */
  discard(ctx: OpContext, id: string, version: number): Promise<TransitionResult> {
    return this.#run(ctx, (tx) => pointer.discard(tx, this.#engine, ctx, id, version));
  }

  /** DISCARDED → RELEASED with its original release stamps; the pointer moves if it is newer. */
  restore(ctx: OpContext, id: string, version: number): Promise<TransitionResult> {
    return this.#run(ctx, (tx) => pointer.restore(tx, this.#engine, ctx, id, version));
  }

  /** Moves the pointer to a live version (RELEASED; or a DRAFT under the development posture). */
  switchCurrent(ctx: OpContext, id: string, version: number): Promise<TransitionResult> {
    return this.#run(ctx, (tx) => pointer.switchCurrent(tx, this.#engine, ctx, id, version));
  }

  /** The draft discard route: deletes the draft whose hash is `ifMatch`. */
  purgeDraft(
    ctx: OpContext,
    id: string,
    ifMatch: string | null | undefined,
    options?: purge.PurgeOptions,
  ): Promise<PurgeResult> {
    return this.#run(
      ctx,
      (tx) => purge.purgeDraft(tx, this.#engine, ctx, id, ifMatch, options),
    );
  }

  /** Deletes version `version`, which must be the draft (`*.version.last_release` otherwise). */
  purgeVersion(
    ctx: OpContext,
    id: string,
    version: number,
    options?: purge.PurgeOptions,
  ): Promise<PurgeResult> {
    return this.#run(
      ctx,
      (tx) => purge.purgeVersion(tx, this.#engine, ctx, id, version, options),
    );
  }

  /** Purges the entity; only while its only version is a draft. */
  deleteEntity(ctx: OpContext, id: string, options?: purge.PurgeOptions): Promise<PurgeResult> {
    return this.#run(ctx, (tx) => purge.deleteEntity(tx, this.#engine, ctx, id, options));
  }

  // --- reads ------------------------------------------------------------------------------------

  /** The entity with its working version (the draft, else the current release) and draft pointer. */
  view(workspaceId: string, id: string, db: Queryable = this.#db): Promise<EntityView> {
    return readEntity(db, this.#engine, workspaceId, id);
  }

  /** One version with its body; the kind's 404 when the entity or the version is unknown. */
  version(
    workspaceId: string,
    id: string,
    version: number,
    db: Queryable = this.#db,
  ): Promise<VersionRow> {
    return readVersion(db, this.#engine, workspaceId, id, version);
  }

  /** Every version's metadata, lowest number first. */
  versions(workspaceId: string, id: string, db: Queryable = this.#db): Promise<VersionMeta[]> {
    return readVersions(db, this.#engine, workspaceId, id);
  }

  /** The index row named `name` in the workspace, or null. */
  async findByName(
    workspaceId: string,
    name: string,
    db: Queryable = this.#db,
  ): Promise<EntityRow | null> {
    return (await repo.findEntityByName(db, this.kind, workspaceId, name)) ?? null;
  }
}
