/**
 * The two kinds the lifecycle serves. Pipelines keep display_name and description in the body and
 * the index row adopts them (and the name) at release; templates keep them on the index row only,
 * moved at save time and outside the hashed content, and their name never changes. Templates answer
 * `template.in_use` where pipelines answer `pipeline.version.pinned`, and an unknown pipeline
 * version is `pipeline.execution.not_found`.
 */
import type { IndexAttrs, JsonObject, KindDescriptor } from "./types.ts";

const text = (v: unknown): string | null => (typeof v === "string" ? v : null);

export const PIPELINE_KIND: KindDescriptor = {
  kind: "pipeline",
  entityTable: "pipelines",
  versionTable: "pipeline_versions",
  fk: "pipeline_id",
  attrColumns: ["display_name", "description"],
  publicId: (e) => e.id,
  adoptOnRelease(body: JsonObject) {
    const attrs: IndexAttrs = {
      display_name: text(body.display_name),
      description: text(body.description),
    };
    return typeof body.name === "string" ? { name: body.name, attrs } : { attrs };
  },
  codes: {
    not_found: "pipeline.not_found",
    version_not_found: "pipeline.execution.not_found",
    conflict: "pipeline.version.conflict",
    not_draft: "pipeline.version.not_draft",
    not_released: "pipeline.version.not_released",
    not_discarded: "pipeline.version.not_discarded",
    not_eligible: "pipeline.version.not_eligible",
    pinned: "pipeline.version.pinned",
    last_release: "pipeline.version.last_release",
    duplicate_name: "pipeline.validation.duplicate_name",
  },
};

export const TEMPLATE_KIND: KindDescriptor = {
  kind: "template",
  entityTable: "templates",
  versionTable: "template_versions",
  fk: "template_id",
  attrColumns: ["type", "dialect", "display_name", "description"],
  publicId: (e) => e.name,
  adoptOnRelease: () => ({}),
  codes: {
    not_found: "template.not_found",
    version_not_found: "template.not_found",
    conflict: "template.version.conflict",
    not_draft: "template.version.not_draft",
    not_released: "template.version.not_released",
    not_discarded: "template.version.not_discarded",
    not_eligible: "template.version.not_eligible",
    pinned: "template.in_use",
    last_release: "template.version.last_release",
    duplicate_name: "template.validation.duplicate_name",
  },
};
