/**
 * Optimistic concurrency (docs/decisions.md#saves-need-if-match): a write names the body hash it
 * was based on in `If-Match`: the draft's for an in-place write, the current release's for a first
 * write after a release. Missing is 400 `pipeline.execution.invalid_parameter_type` with
 * `details.reason` `precondition_missing`; anything else that is not the entity's current hash is
 * stale, 409 with the current hash and who wrote it, so a client can show whose change it would
 * overwrite. Hashes are content hashes over a body that names its entity (a pipeline's name, a
 * template's id), so a hash taken from another entity does not match. `*` is not honoured: it would
 * skip the very check.
 */
import { AppError } from "../errors/mod.ts";
import { kindError } from "./kind_error.ts";
import type { EntityRow, KindDescriptor, VersionMeta } from "./types.ts";

/** The hash an `If-Match` header carries (surrounding quotes dropped); 400 when absent or blank. */
export function requireIfMatch(header: string | null | undefined): string {
  let value = typeof header === "string" ? header.trim() : "";
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    value = value.slice(1, -1).trim();
  }
  if (value === "") {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "If-Match",
      reason: "precondition_missing",
    });
  }
  return value;
}

/**
 * The stale-hash refusal: `base` is the version the write had to be based on (the draft, else the
 * current release), null when there is none (every release discarded).
 */
export function staleIfMatch(
  k: KindDescriptor,
  entity: EntityRow,
  ifMatch: string,
  base: VersionMeta | null,
): AppError {
  return kindError(k, "conflict", k.publicId(entity), {
    if_match: ifMatch.slice(0, 200),
    current: base
      ? `body hash ${base.body_hash} (version ${base.version}, ${base.status}, by ${base.updated_by})`
      : "no live version",
    current_hash: base?.body_hash ?? null,
    current_version: base?.version ?? null,
    current_status: base?.status ?? null,
    author: base?.updated_by ?? null,
    authored_at: base?.updated_at ?? null,
  });
}
