/**
 * A kind's refusal. The engine raises the same refusal for pipelines and templates, so a slot's
 * code is one of two and the entity's id key differs (`pipeline_id`, `template_id`). The details
 * are checked against both kinds' messages for every placeholder but that id key, which this
 * function fills from the kind; kind_error_test.ts renders every slot of both kinds.
 */
import { AppError, type DetailNames, type ErrorDetails } from "../errors/mod.ts";
import type { EntityKind, KindCodes, KindDescriptor } from "./types.ts";

/** The placeholders a refusal of `slot` needs besides the entity's id, for either kind. */
export type KindDetailNames<S extends keyof KindCodes> = Exclude<
  DetailNames<KindCodes[S]>,
  `${EntityKind}_id`
>;

/** Details for a refusal of `slot`: every placeholder but the id, none of them null. */
export type KindDetails<S extends keyof KindCodes> =
  & { readonly [K in KindDetailNames<S>]: NonNullable<unknown> }
  & ErrorDetails;

/** The kind's `slot` refusal about the entity known to callers as `id` (null: none named). */
export function kindError<S extends keyof KindCodes>(
  kind: KindDescriptor,
  slot: S,
  id: string | null,
  details: KindDetails<S>,
): AppError {
  const full = id === null ? details : { [`${kind.kind}_id`]: id, ...details };
  // The one unchecked step: which of the slot's two codes applies is known only at run time.
  return new AppError(kind.codes[slot] as KindCodes[keyof KindCodes], full as never);
}
