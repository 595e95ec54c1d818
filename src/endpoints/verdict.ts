/**
 * What every serve re-checks before it runs (docs/endpoints.md#serving): the workspace is active,
 * the pipeline is there with a latest RELEASED version, and that version is side-effect-free,
 * transitively through PIPELINE nodes. The verdict is a function of stored state that changes
 * only through announced writes (a release, discard, restore, switch, save or delete of any
 * pipeline; a workspace deactivated, reactivated or deleted; a promotion push), each of which
 * moves `LiveEndpoints` to a new snapshot on every replica. So a verdict is judged once per
 * snapshot and pipeline, and every serve in between re-checks against it without a store read.
 * A lost announcement is bounded by the snapshot's own maximum age.
 */
import type { Queryable } from "../store/mod.ts";
import type { Snapshot } from "./live.ts";
import type { Released, ReleasedVersions } from "./released.ts";
import { serveState } from "./repo.ts";

export type Verdict =
  /** The workspace is deactivated or gone: its endpoints answer like an unknown path. */
  | { kind: "inactive" }
  /** 503 `endpoint.unavailable` with this reason and these details. */
  | { kind: "unavailable"; reason: string; details: Record<string, unknown> }
  | { kind: "servable"; released: Released };

export class ServeVerdicts {
  readonly #db: Queryable;
  readonly #released: ReleasedVersions;
  /** A snapshot's verdicts die with it: a change anywhere starts an empty map. */
  readonly #bySnapshot = new WeakMap<Snapshot, Map<string, Promise<Verdict>>>();

  constructor(db: Queryable, released: ReleasedVersions) {
    this.#db = db;
    this.#released = released;
  }

  /** The verdict on the pipeline's latest release, judged at most once per snapshot. */
  of(snapshot: Snapshot, workspaceId: string, pipelineId: string): Promise<Verdict> {
    let verdicts = this.#bySnapshot.get(snapshot);
    if (!verdicts) this.#bySnapshot.set(snapshot, verdicts = new Map());
    const key = `${workspaceId}|${pipelineId}`;
    let verdict = verdicts.get(key);
    if (!verdict) {
      const judged = this.#judge(workspaceId, pipelineId);
      verdicts.set(key, verdict = judged);
      // A failed read is not a verdict: the next serve reads again.
      judged.catch(() => verdicts.get(key) === judged && verdicts.delete(key));
    }
    return verdict;
  }

  async #judge(workspaceId: string, pipelineId: string): Promise<Verdict> {
    const unavailable = (reason: string, details: Record<string, unknown> = {}): Verdict => ({
      kind: "unavailable",
      reason,
      details,
    });
    // One read for the workspace and the latest release; bodies are immutable and cached.
    const state = await serveState(this.#db, workspaceId, pipelineId);
    if (!state.active) return { kind: "inactive" };
    if (!state.pipeline) return unavailable("the pipeline no longer exists");
    if (!state.latest) return unavailable("the pipeline has no released version");
    const released = await this.#released.released(workspaceId, pipelineId, state.latest);
    const defect = await this.#released.writeDefect(workspaceId, pipelineId, released);
    if (defect) {
      return unavailable(`node ${defect.node_id} of the latest release is not side-effect-free`, {
        node_id: defect.node_id,
        pipeline_version: released.version,
      });
    }
    return { kind: "servable", released };
  }
}
