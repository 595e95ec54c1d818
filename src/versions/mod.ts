/**
 * The version lifecycle shared by pipelines and templates (docs/authoring.md#versions): the
 * transition table as data, one engine over a per-kind descriptor, optimistic concurrency by body
 * hash.
 *
 * Decided here:
 * - Hardened posture: every transition writing authored content is 403
 *   `pipeline.authoring.disabled` (both kinds; checked before anything is read); switching the
 *   current version stays open, onto a RELEASED version only.
 * - The pointer never dangles and never rests on a discarded version: whenever the version it
 *   holds leaves (discard, purge of a draft it held), it goes to the highest eligible live version
 *   (a draft counts only under the development posture), else null.
 * - Both purge routes take the entity with a sole draft; a purged number is reused (next = max+1
 *   of what is left). Purge by version of a DISCARDED version is refused like a RELEASED one
 *   (`*.version.last_release`): released history is kept.
 * - A save with a draft present always writes the draft, even when its body equals the release
 *   (the number is already taken); the identical-body no-op applies only when there is no draft.
 *   Index columns outside the hash (a template's display_name) move on every save, no-op included.
 * - With no live version (every release discarded) a save has no base: any If-Match is stale
 *   (409 with `current_hash: null`); restore a version first.
 * - `If-Match: *` is not honoured (stale), surrounding quotes are accepted.
 * - Draft saves write no audit row (the version row's updated_by/at keep the author); create,
 *   release, discard, restore, purge, switch and delete do, in the change's transaction.
 * - An unknown entity is `pipeline.not_found` / `template.not_found` (404); an unknown version is
 *   `pipeline.execution.not_found` / `template.not_found`; a pinned template version is
 *   `template.in_use` where a pipeline's is `pipeline.version.pinned`.
 */
export { PIPELINE_KIND, TEMPLATE_KIND } from "./kinds.ts";
export type { CreateInput, ReleaseOptions, UpdateInput } from "./lifecycle.ts";
export type { PurgeOptions } from "./purge.ts";
export { requireIfMatch } from "./precondition.ts";
export { insertVersion } from "./repo.ts";
export { VersionLifecycle, type VersionLifecycleOptions } from "./service.ts";
export {
  admits,
  type Effect,
  eligibleForPointer,
  rule,
  type RuleId,
  type TransitionRule,
  TRANSITIONS,
  type Trigger,
} from "./transitions.ts";
export {
  type DraftPointer,
  type EntityKind,
  type EntityRow,
  type EntityView,
  type HookContext,
  type IndexAttrs,
  type JsonObject,
  type KindCodes,
  type KindDescriptor,
  type LifecycleHook,
  type LifecycleHooks,
  type OpContext,
  type PinCheck,
  type Pinner,
  type Posture,
  type PurgeResult,
  type SaveResult,
  type TransitionResult,
  VERSION_STATUSES,
  type VersionMeta,
  type VersionRow,
  type VersionStatus,
} from "./types.ts";
export { draftPointerView, folderLevelView, versionMetaView, versionStatusView } from "./views.ts";
