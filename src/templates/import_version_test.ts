import { deepEqual, equal, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { AppError } from "../errors/mod.ts";
import { bodyHash } from "../lib/canonical_json.ts";
import { importTemplateVersion, type TemplateVersionPayload } from "./import_version.ts";
import { setup, sql } from "./test_fixtures.ts";

function entry(
  id: string,
  version: number,
  body: string,
  extra: Partial<TemplateVersionPayload> = {},
) {
  const imports = extra.imports ?? [];
  const dialect = extra.dialect ?? "POSTGRES";
  const content = { id, type: "sql", dialect, imports, body };
  return { ...content, version, body_hash: bodyHash(content), display_name: "Imported", ...extra };
}

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

forEachStore(
  "a pushed template version keeps its number and hash; the same again is a no-op",
  async (db) => {
    const { svc, ctx } = await setup(db);
    const e = entry("lib/base", 5, "SELECT 1");
    const first = await db.transaction((tx) => importTemplateVersion(tx, { ...ctx, tx }, e));
    deepEqual(first, { created: true, name: "lib/base", version: 5 });
    const view = await svc.get(ctx.workspaceId, "lib/base");
    deepEqual([view.version, view.status, view.body_hash, view.current_version], [
      5,
      "RELEASED",
      e.body_hash,
      5,
    ]);
    const again = await db.transaction((tx) => importTemplateVersion(tx, { ...ctx, tx }, e));
    equal(again.created, false);
    // An import pinning it, and an older number that leaves the pointer where it is.
    const top = entry("lib/top", 1, "{% render 'base' %}", {
      imports: [{ id: "lib/base", version: 5, alias: "base" }],
    });
    await db.transaction((tx) => importTemplateVersion(tx, { ...ctx, tx }, top));
    await db.transaction((tx) =>
      importTemplateVersion(tx, { ...ctx, tx }, entry("lib/base", 3, "SELECT 3"))
    );
    equal((await svc.get(ctx.workspaceId, "lib/base")).current_version, 5);
  },
);

forEachStore(
  "a pushed template version refuses a wrong hash, a conflict, a missing import",
  async (db) => {
    const { svc, ctx } = await setup(db);
    const apply = (e: TemplateVersionPayload) =>
      db.transaction((tx) => importTemplateVersion(tx, { ...ctx, tx }, e));
    await rejects(
      apply({ ...entry("lib/a", 1, "SELECT 1"), body_hash: bodyHash("other") }),
      code("pipeline.import.hash_mismatch"),
    );
    await svc.create(ctx, sql("lib/draft"));
    await rejects(
      apply(entry("lib/draft", 1, "SELECT 2")),
      code("pipeline.import.version_conflict"),
    );
    await rejects(
      apply(entry("lib/draft", 2, "SELECT 2", { dialect: "SQLITE" })),
      code("pipeline.import.version_conflict"),
    );
    await rejects(
      apply(
        entry("lib/b", 1, "SELECT 1", { imports: [{ id: "lib/none", version: 1, alias: "n" }] }),
      ),
      code("pipeline.import.missing_template"),
    );
    equal((await svc.get(ctx.workspaceId, "lib/draft")).status, "DRAFT");
  },
);
