/**
 * What an endpoint serves (docs/decisions.md#an-endpoint-serves-the-latest-release): the latest
 * RELEASED version of its pinned pipeline, and whether that version is side-effect-free,
 * transitively through PIPELINE nodes. Publish refuses a write-capable version (409); serving
 * re-checks on every request (503).
 *
 * The check is cheap on a hit: a released body is immutable, so parsed bodies are cached by
 * (pipeline, version, body hash) and each serve costs one metadata read per pipeline in the tree
 * (to learn the latest release, or a child's current version), never a body parse.
 *
 * Decided here (docs/decisions.md#only-side-effect-free-pipelines-are-published): a CALCULATOR node
 * derives parameters and touches no datasource, so it counts as side-effect-free beside DQL nodes
 * with a `tempdb` or `caller` output and PIPELINE nodes over such children.
 */
import { AppError } from "../errors/mod.ts";
import { parseBody, type PipelineBody } from "../pipelines/mod.ts";
import type { Queryable } from "../store/mod.ts";
import type { VersionLifecycle } from "../versions/mod.ts";

/** A nesting bound for the walk, the executor's default depth (a cycle ends here too). */
const MAX_DEPTH = 8;
const CACHE_MAX = 5_000;

export interface Released {
  version: number;
  bodyHash: string;
  body: PipelineBody;
}

/** Why a version is not side-effect-free: the offending node and where it sits. */
export interface WriteDefect {
  node_id: string;
  pipeline_id: string;
  pipeline_version: number;
  reason: string;
  /** PIPELINE node ids from the published pipeline down to the one holding the node. */
  via: string[];
}

/** The version an endpoint serves among a pipeline's versions: the highest RELEASED one. */
export function servedAmong<T extends { version: number; status: string }>(
  versions: readonly T[],
): T | undefined {
  let best: T | undefined;
  for (const v of versions) {
    if (v.status === "RELEASED" && (!best || v.version > best.version)) best = v;
  }
  return best;
}

/**
 * Every read takes an optional `db`: a caller inside a transaction (a promotion push checking what
 * it just imported) reads through it; the default is the lifecycle's store.
 */
export class ReleasedVersions {
  readonly #pipelines: VersionLifecycle;
  readonly #bodies = new Map<string, PipelineBody>();

  constructor(pipelines: VersionLifecycle) {
    this.#pipelines = pipelines;
  }

  /** The latest released version; `gone` when the pipeline is, `no_release` when it has none. */
  async latest(
    workspaceId: string,
    pipelineId: string,
    db?: Queryable,
  ): Promise<Released | "gone" | "no_release"> {
    const meta = await this.#latestMeta(workspaceId, pipelineId, db);
    if (typeof meta === "string") return meta;
    return {
      version: meta.version,
      bodyHash: meta.body_hash,
      body: await this.#body(workspaceId, pipelineId, meta.version, meta.body_hash, db),
    };
  }

  /** The latest released version's number alone (no body), or why there is none. */
  async latestVersion(
    workspaceId: string,
    pipelineId: string,
  ): Promise<number | "gone" | "no_release"> {
    const meta = await this.#latestMeta(workspaceId, pipelineId);
    return typeof meta === "string" ? meta : meta.version;
  }

  async #latestMeta(workspaceId: string, pipelineId: string, db?: Queryable) {
    const metas = await this.#metas(workspaceId, pipelineId, db);
    if (!metas) return "gone";
    return servedAmong(metas) ?? "no_release";
  }

  /** A release whose number and hash were read elsewhere (`serveState`), with its body. */
  async released(
    workspaceId: string,
    pipelineId: string,
    meta: { version: number; bodyHash: string },
  ): Promise<Released> {
    return {
      version: meta.version,
      bodyHash: meta.bodyHash,
      body: await this.#body(workspaceId, pipelineId, meta.version, meta.bodyHash),
    };
  }

  /** The first node that could write, depth first in node order, or null when none can. */
  async writeDefect(
    workspaceId: string,
    pipelineId: string,
    released: Released,
    db?: Queryable,
  ) {
    return await this.#defect(workspaceId, pipelineId, released.version, released.body, [], 0, db);
  }

  async #defect(
    workspaceId: string,
    pipelineId: string,
    version: number,
    body: PipelineBody,
    via: string[],
    depth: number,
    db?: Queryable,
  ): Promise<WriteDefect | null> {
    const at = (node_id: string, reason: string): WriteDefect => ({
      node_id,
      pipeline_id: pipelineId,
      pipeline_version: version,
      reason,
      via,
    });
    for (const node of body.nodes) {
      const target = node.output?.target ?? "caller";
      if (node.type === "CALCULATOR") continue;
      if (node.type === "DQL") {
        if (target === "datasource") return at(node.id, "its output goes to a datasource");
        continue;
      }
      if (node.type !== "PIPELINE") return at(node.id, `a ${node.type} node writes`);
      if (target === "datasource") return at(node.id, "its output goes to a datasource");
      if (depth + 1 >= MAX_DEPTH) return at(node.id, "child pipelines nest too deep");
      const child = await this.#child(workspaceId, node.pipeline!.id, node.pipeline!.version, db);
      if (!child) return at(node.id, "its child pipeline version no longer exists");
      const found = await this.#defect(
        workspaceId,
        node.pipeline!.id,
        child.version,
        child.body,
        [...via, node.id],
        depth + 1,
        db,
      );
      if (found) return found;
    }
    return null;
  }

  /** A child as the executor would run it: the pinned version, else the current one. */
  async #child(workspaceId: string, childId: string, pinned: number | undefined, db?: Queryable) {
    let wanted = pinned;
    if (wanted === undefined) {
      try {
        wanted = (await this.#pipelines.view(workspaceId, childId, db)).entity.current_version ??
          undefined;
      } catch (e) {
        if (gone(e)) return null;
        throw e;
      }
      if (wanted === undefined) return null;
    }
    const meta = (await this.#metas(workspaceId, childId, db))?.find((m) => m.version === wanted);
    if (!meta) return null;
    return {
      version: meta.version,
      body: await this.#body(workspaceId, childId, meta.version, meta.body_hash, db),
    };
  }

  async #metas(workspaceId: string, pipelineId: string, db?: Queryable) {
    try {
      return await this.#pipelines.versions(workspaceId, pipelineId, db);
    } catch (e) {
      if (gone(e)) return null;
      throw e;
    }
  }

  async #body(workspaceId: string, id: string, version: number, hash: string, db?: Queryable) {
    // Keyed by hash: a body read inside a transaction that then rolls back is still the body of
    // that hash wherever it is stored later.
    const key = `${id}@${version}#${hash}`;
    const cached = this.#bodies.get(key);
    if (cached) return cached;
    const row = await this.#pipelines.version(workspaceId, id, version, db);
    const body = parseBody(row.body, id);
    if (this.#bodies.size >= CACHE_MAX) this.#bodies.delete(this.#bodies.keys().next().value!);
    this.#bodies.set(key, body);
    return body;
  }
}

function gone(e: unknown): boolean {
  return e instanceof AppError &&
    (e.code === "pipeline.not_found" || e.code === "pipeline.execution.not_found");
}
