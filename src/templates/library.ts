/**
 * The library import (`POST /templates/import`, docs/decisions.md#the-template-library-import). A
 * library template is a sql template `{id, dialect, body}` (display_name and description optional)
 * with no imports, delivered released so pipelines can pin it at once. Per template:
 * - unknown id: created and released (version 1) — `created`;
 * - its current release already holds this content: nothing changes — `unchanged` (so importing
 *   the same library twice is a no-op);
 * - other content and no draft: a new version is written and released — `updated`;
 * - other content while a draft is open: 409 `template.import.draft_pending` (the import never
 *   overwrites someone's unreleased work).
 * The whole import is one transaction: any refusal leaves nothing behind. Releases are audited
 * like any other, with `via: "library_import"`.
 */
import { AppError } from "../errors/mod.ts";
import { bodyHash } from "../lib/canonical_json.ts";
import type { Queryable } from "../store/mod.ts";
import type { OpContext, VersionLifecycle } from "../versions/mod.ts";
import { checkBody, checkDialect, checkId, contentOf } from "./content.ts";
import type { LibraryImportInput, LibraryOutcome } from "./types.ts";

const AUDIT = { auditDetails: { via: "library_import" } };

export async function importLibrary(
  tx: Queryable,
  life: VersionLifecycle,
  ctx: OpContext & { tx: Queryable },
  input: LibraryImportInput,
): Promise<LibraryOutcome[]> {
  const seen = new Set<string>();
  const out: LibraryOutcome[] = [];
  for (const [i, item] of input.templates.entries()) {
    const name = checkId(item.id);
    if (seen.has(name)) {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: `templates.${i}.id`,
        reason: `the id ${name} appears twice in this import`,
      });
    }
    seen.add(name);
    const existing = await life.findByName(ctx.workspaceId, name, tx);
    if (existing && existing.attrs.type !== "sql") {
      throw new AppError("template.validation.type_immutable", {
        template_id: name,
        type: "sql",
        established_type: String(existing.attrs.type),
      });
    }
    const dialect = checkDialect(
      "sql",
      item.dialect,
      existing ? { template_id: name, dialect: existing.attrs.dialect } : null,
    );
    await checkBody(name, "sql", [], item.body);
    const content = contentOf(name, "sql", dialect, [], item.body);
    const hash = bodyHash(content);
    const attrs = {
      display_name: item.display_name ?? existing?.attrs.display_name ?? name.split("/").at(-1)!,
      description: item.description ?? existing?.attrs.description ?? null,
    };
    if (!existing) {
      const made = await life.create(ctx, {
        name,
        body: content,
        attrs: { type: "sql", dialect: dialect ?? null, ...attrs },
      });
      await life.release(ctx, made.entity.id, hash, AUDIT);
      out.push({ id: name, version: 1, status: "RELEASED", body_hash: hash, outcome: "created" });
      continue;
    }
    const metas = await life.versions(ctx.workspaceId, existing.id, tx);
    const current = metas.find((m) => m.version === existing.current_version);
    if (current?.status === "RELEASED" && current.body_hash === hash) {
      out.push({
        id: name,
        version: current.version,
        status: "RELEASED",
        body_hash: hash,
        outcome: "unchanged",
      });
      continue;
    }
    const draft = metas.find((m) => m.status === "DRAFT");
    if (draft) {
      throw new AppError("template.import.draft_pending", {
        template_id: name,
        version: draft.version,
        author: draft.updated_by,
      });
    }
    const saved = await life.update(ctx, existing.id, current?.body_hash ?? null, {
      body: content,
      attrs,
    });
    await life.release(ctx, existing.id, hash, AUDIT);
    out.push({
      id: name,
      version: saved.version.version,
      status: "RELEASED",
      body_hash: hash,
      outcome: "updated",
    });
  }
  return out;
}
