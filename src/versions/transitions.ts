/**
 * The version lifecycle (docs/authoring.md#versions) as data: one row per transition, read by the
 * engine (lifecycle.ts) for the states a transition starts from, its refusal, what the hardened
 * posture allows, whether it needs an If-Match, and the audit event it writes. `effects` names what
 * the engine does on the row's behalf, in plain words; the tests walk every row.
 *
 * The posture (docs/decisions.md#the-hardened-posture): under the hardened posture
 * (`service.deployment.authoring-enabled: false`) content arrives released by promotion, so every
 * transition that writes authored content is refused 403 `pipeline.authoring.disabled` — create,
 * update, release, discard, restore, both purges and the entity delete. Switching the current
 * version stays open (it is the operator's rollback lever in production) but only onto a RELEASED
 * version. Reads are never refused.
 */
import type { VersionAudit } from "../audit/mod.ts";
import type { KindCodes, VersionStatus } from "./types.ts";

export type Trigger =
  | "create"
  | "update"
  | "release"
  | "discard"
  | "restore"
  | "purge_draft"
  | "purge_version"
  | "switch_current"
  | "delete";

/** What the engine does for a row, besides moving the status. */
export type Effect =
  | "number_1" // the first version is number 1
  | "pointer_null" // current_version starts null
  | "hash_guard" // If-Match must equal the target's body_hash (a conditional write)
  | "new_number" // next number = highest existing + 1
  | "overwrite" // the same draft row is rewritten
  | "no_op" // nothing written, no number consumed; reports the release
  | "release_hooks" // re-validation, pinned templates, checks (callers' hooks)
  | "pointer_to_version" // current_version moves to the released version
  | "adopt_index" // index name/display_name/description adopt the body's values
  | "pin_check" // refused while a live parent exact-pins the version
  | "pointer_recompute_if_current" // highest eligible live version, else null
  | "release_stamps_return" // released_by/at kept from the original release
  | "pointer_if_newer" // moves only when newer than current, or current is null
  | "purge_hooks" // dependants (executions, check runs) removed or the purge refused
  | "sole_takes_entity" // the entity goes with its last version
  | "number_returns" // the purged number is free for the next draft
  | "pointer_moves"; // current_version := target

/** One row of the transition table. */
export interface TransitionRule {
  /** Unique name, e.g. `update.first_write`. */
  id: string;
  trigger: Trigger;
  /** The statuses the target may have (`none`: no entity yet). */
  from: readonly (VersionStatus | "none")[];
  /** The row's condition, for readers. */
  condition: string;
  to: VersionStatus | "unchanged" | "deleted" | "entity_purged" | "pointer";
  effects: readonly Effect[];
  /** The kind's refusal when the target's status is not in `from`. */
  refusal: keyof KindCodes | null;
  /** Under the hardened posture: refused outright, or the statuses still admitted. */
  hardened: "refused" | readonly VersionStatus[];
  /** The request must carry `If-Match` (400 `precondition_missing` otherwise). */
  precondition: boolean;
  /** Audit event after the kind prefix (`pipeline.` + this); null writes none. */
  audit: VersionAudit | null;
}

export const TRANSITIONS = [
  {
    id: "create",
    trigger: "create",
    from: ["none"],
    condition: "",
    to: "DRAFT",
    effects: ["number_1", "pointer_null"],
    refusal: null,
    hardened: "refused",
    precondition: false,
    audit: "created",
  },
  {
    id: "update.first_write",
    trigger: "update",
    from: ["RELEASED"],
    condition: "first write after a release: no draft; If-Match is the current release's hash",
    to: "DRAFT",
    effects: ["hash_guard", "new_number"],
    refusal: "conflict",
    hardened: "refused",
    precondition: true,
    audit: null,
  },
  {
    id: "update.identical",
    trigger: "update",
    from: ["RELEASED"],
    condition: "no draft and the body is identical to the current release",
    to: "unchanged",
    effects: ["hash_guard", "no_op"],
    refusal: "conflict",
    hardened: "refused",
    precondition: true,
    audit: null,
  },
  {
    id: "update.later_write",
    trigger: "update",
    from: ["DRAFT"],
    condition: "later writes: If-Match is the draft's hash",
    to: "DRAFT",
    effects: ["hash_guard", "overwrite"],
    refusal: "conflict",
    hardened: "refused",
    precondition: true,
    audit: null,
  },
  {
    id: "release",
    trigger: "release",
    from: ["DRAFT"],
    condition: "hooks pass (re-validation, pinned templates released, checks); hash guard",
    to: "RELEASED",
    effects: ["hash_guard", "release_hooks", "pointer_to_version", "adopt_index"],
    refusal: "not_draft",
    hardened: "refused",
    precondition: true,
    audit: "version.released",
  },
  {
    id: "discard",
    trigger: "discard",
    from: ["RELEASED"],
    condition: "no live parent version exact-pins it",
    to: "DISCARDED",
    effects: ["pin_check", "pointer_recompute_if_current"],
    refusal: "not_released",
    hardened: "refused",
    precondition: false,
    audit: "version.discarded",
  },
  {
    id: "restore",
    trigger: "restore",
    from: ["DISCARDED"],
    condition: "",
    to: "RELEASED",
    effects: ["release_stamps_return", "pointer_if_newer"],
    refusal: "not_discarded",
    hardened: "refused",
    precondition: false,
    audit: "version.restored",
  },
  {
    id: "purge_draft",
    trigger: "purge_draft",
    from: ["DRAFT"],
    condition: "the draft discard route; If-Match is the draft's hash",
    to: "deleted",
    effects: [
      "hash_guard",
      "purge_hooks",
      "sole_takes_entity",
      "number_returns",
      "pointer_recompute_if_current",
    ],
    refusal: "not_draft",
    hardened: "refused",
    precondition: true,
    audit: "version.purged",
  },
  {
    id: "purge_version",
    trigger: "purge_version",
    from: ["DRAFT"],
    condition: "a released (or discarded) target is refused",
    to: "deleted",
    effects: ["purge_hooks", "sole_takes_entity", "number_returns", "pointer_recompute_if_current"],
    refusal: "last_release",
    hardened: "refused",
    precondition: false,
    audit: "version.purged",
  },
  {
    id: "switch_current",
    trigger: "switch_current",
    from: ["RELEASED", "DRAFT"],
    condition: "target not discarded; not a draft under the hardened posture",
    to: "pointer",
    effects: ["pointer_moves"],
    refusal: "not_eligible",
    hardened: ["RELEASED"],
    precondition: false,
    audit: "current_switched",
  },
  {
    id: "delete",
    trigger: "delete",
    from: ["DRAFT"],
    condition: "the entity's only version is a draft",
    to: "entity_purged",
    effects: ["purge_hooks"],
    refusal: "last_release",
    hardened: "refused",
    precondition: false,
    audit: "deleted",
  },
] as const satisfies readonly TransitionRule[];

export type RuleId = (typeof TRANSITIONS)[number]["id"];

/** The row named `I`, with its literal refusal (what ensureAdmitted checks details against). */
export type Rule<I extends RuleId> = Extract<(typeof TRANSITIONS)[number], { id: I }>;

const BY_ID = new Map<string, TransitionRule>(TRANSITIONS.map((r) => [r.id, r]));

/** The row named `id`. */
export function rule<I extends RuleId>(id: I): Rule<I> {
  return BY_ID.get(id) as Rule<I>;
}

/** True when `rule` may start from `status` under `posture`. */
export function admits(
  rule: TransitionRule,
  status: VersionStatus,
  posture: "development" | "hardened",
): boolean {
  if (!rule.from.includes(status)) return false;
  if (posture === "development" || rule.hardened === "refused") return true;
  return rule.hardened.includes(status);
}

/**
 * Which versions may hold the default pointer: RELEASED always, a DRAFT only under the development
 * posture, never a DISCARDED one.
 */
export function eligibleForPointer(
  status: VersionStatus,
  posture: "development" | "hardened",
): boolean {
  return status === "RELEASED" || (status === "DRAFT" && posture === "development");
}
