import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { setup, sql } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

const lib = (id: string, body: string, dialect = "DUCKDB") => ({ id, dialect, body });

forEachStore("importLibrary() creates released templates and is idempotent", async (db) => {
  const { svc, ctx, workspaceId } = await setup(db);
  const payload = { templates: [lib("lib/a", "SELECT 1"), lib("lib/b", "SELECT 2")] };
  const first = await svc.importLibrary(ctx, payload);
  deepEqual(first.map((o) => [o.id, o.version, o.status, o.outcome]), [
    ["lib/a", 1, "RELEASED", "created"],
    ["lib/b", 1, "RELEASED", "created"],
  ]);
  const a = await svc.get(workspaceId, "lib/a");
  deepEqual([a.status, a.current_version, a.display_name, a.dialect], [
    "RELEASED",
    1,
    "a",
    "DUCKDB",
  ]);
  equal(a.body_hash, first[0].body_hash);
  const again = await svc.importLibrary(ctx, payload);
  deepEqual(again.map((o) => o.outcome), ["unchanged", "unchanged"]);
  equal((await svc.versions(workspaceId, "lib/a")).length, 1);
  const changed = await svc.importLibrary(ctx, { templates: [lib("lib/a", "SELECT 10")] });
  deepEqual(changed.map((o) => [o.version, o.outcome]), [[2, "updated"]]);
  deepEqual((await svc.versions(workspaceId, "lib/a")).map((m) => m.status), [
    "RELEASED",
    "RELEASED",
  ]);
  const released = await audits(db, "template.version.released");
  equal(released.length, 3);
  equal(released[0].details.via, "library_import");
});

forEachStore(
  "importLibrary() refuses open drafts, dialect changes and duplicates, all or nothing",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const open = await svc.create(ctx, sql("mine/draft", "SELECT 1", { dialect: "DUCKDB" }));
    await refuses(
      svc.importLibrary(ctx, {
        templates: [lib("lib/new", "SELECT 1"), lib("mine/draft", "SELECT 2")],
      }),
      "template.import.draft_pending",
      409,
      { template_id: "mine/draft", version: 1, author: ctx.actor.userId },
    );
    await refuses(svc.get(workspaceId, "lib/new"), "template.not_found", 404);
    await svc.release(ctx, "mine/draft", open.body_hash);
    await refuses(
      svc.importLibrary(ctx, { templates: [lib("mine/draft", "SELECT 2", "MYSQL")] }),
      "template.validation.dialect_invalid",
      400,
      { established_dialect: "DUCKDB", dialect: "MYSQL" },
    );
    await refuses(
      svc.importLibrary(ctx, { templates: [lib("lib/x", "1"), lib("lib/x", "2")] }),
      "pipeline.execution.invalid_parameter_type",
      400,
      { field: "templates.1.id" },
    );
    await refuses(
      svc.importLibrary(ctx, { templates: [lib("flat", "1")] }),
      "template.validation.id_invalid",
      400,
    );
    // Content the current release already holds is unchanged, whoever created it.
    deepEqual(
      (await svc.importLibrary(ctx, { templates: [lib("mine/draft", "SELECT 1")] })).map((o) =>
        o.outcome
      ),
      ["unchanged"],
    );
  },
);
