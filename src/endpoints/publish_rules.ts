/**
 * The publish rules (docs/endpoints.md#publishing), in one place for both ways an endpoint row is
 * written: a publish (service.ts) and a promotion push (promoted.ts). A pushed row passes exactly
 * what a publish on the target would: the pattern grammar and no reserved path, the pipeline
 * released in the workspace, every path variable a declared parameter of that release, the release
 * side-effect-free, the timeout clamped to the target's bounds, and no overlap with another pattern
 * of the deployment.
 */
import { AppError } from "../errors/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { Matcher } from "./matcher.ts";
import { parsePattern, type Pattern, publishablePattern } from "./path.ts";
import type { Released, ReleasedVersions } from "./released.ts";
import * as repo from "./repo.ts";

export const DEFAULT_TIMEOUT_SECONDS = 30;

/** What the rules read: the releases, and `service.endpoints.timeout-min-seconds`/`-max-seconds`. */
export interface PublishRules {
  released: ReleasedVersions;
  timeoutMinSeconds: number;
  timeoutMaxSeconds: number;
}

/** One endpoint row as asked for: the pattern as sent, the pipeline by id, the timeout if any. */
export interface PublishRequest {
  workspaceId: string;
  pipelineId: string;
  pathPattern: unknown;
  timeoutSeconds?: number;
}

/** A row that passed the rules: its parsed pattern, the release it serves, its clamped timeout. */
export interface Publishable {
  pattern: Pattern;
  released: Released;
  timeoutSeconds: number;
}

/**
 * Every rule but the conflict one (see `conflictingPattern`), in publish's order. `db` is the
 * transaction to read through when the pipeline was written in it.
 */
export async function checkPublishable(
  rules: PublishRules,
  input: PublishRequest,
  db?: Queryable,
): Promise<Publishable> {
  const pattern = publishablePattern(input.pathPattern);
  const released = await rules.released.latest(input.workspaceId, input.pipelineId, db);
  if (released === "gone") {
    throw new AppError("pipeline.not_found", {
      pipeline_id: input.pipelineId,
      reason: "not in this workspace",
    });
  }
  if (released === "no_release") {
    throw new AppError("endpoint.pipeline_not_released", { pipeline_id: input.pipelineId });
  }
  const declared = released.body.parameters;
  const unknown = pattern.variables.find((v) => !Object.hasOwn(declared, v));
  if (unknown) {
    throw new AppError("endpoint.path_variable_unknown", {
      variable: unknown,
      path_pattern: pattern.text,
      pipeline_version: released.version,
      declared: Object.keys(declared),
    });
  }
  const defect = await rules.released.writeDefect(
    input.workspaceId,
    input.pipelineId,
    released,
    db,
  );
  if (defect) throw new AppError("endpoint.pipeline_not_readonly", { ...defect });
  const { timeoutMinSeconds: min, timeoutMaxSeconds: max } = rules;
  const timeoutSeconds = Math.min(
    max,
    Math.max(min, input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
  );
  return { pattern, released, timeoutSeconds };
}

/**
 * 409 `endpoint.path_conflict` naming the first pattern of the deployment some URL would match
 * together with `pattern`. Call it in the writing transaction after `repo.lockForPublish`.
 */
export async function refuseConflict(tx: Queryable, pattern: Pattern): Promise<void> {
  const existing = new Matcher<null>();
  for (const text of await repo.allPatterns(tx)) existing.add(parsePattern(text), null);
  const clash = existing.conflictWith(pattern.segments);
  if (clash) throw pathConflict(pattern.text, clash.text);
}

export function pathConflict(path: string, other: string): AppError {
  return new AppError("endpoint.path_conflict", { path_pattern: path, conflicts_with: other });
}
