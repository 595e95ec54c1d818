/**
 * The version lifecycle shared by pipelines and templates (spec 2 §3.1): the transition table as
 * data, one engine over a per-kind descriptor, optimistic concurrency by body hash.
 */
export { PIPELINE_KIND, TEMPLATE_KIND } from "./kinds.ts";
export type { CreateInput, PurgeOptions, ReleaseOptions, UpdateInput } from "./lifecycle.ts";
export { requireIfMatch } from "./precondition.ts";
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
