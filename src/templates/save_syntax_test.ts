/**
 * A sql template's Liquid is parsed at save: a body that does not parse is refused with the
 * renderer's code, line and column, and nothing is written (no version, no number, no audit row).
 */
import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import type { Queryable } from "../store/mod.ts";
import { htmlTemplate, setup, sql } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

const UNCLOSED_IF = "SELECT 1\nFROM t {% if params.x %}\nWHERE x = :x";

async function versionRows(db: Queryable): Promise<number> {
  const rows = await db.query<{ n: number | string }>(
    "SELECT count(*) AS n FROM template_versions",
  );
  return Number(rows[0].n);
}

forEachStore(
  "create() refuses Liquid that does not parse, with line and column, writing nothing",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const before = await versionRows(db);
    for (
      const [body, line, column, message] of [
        [UNCLOSED_IF, 2, 8, "tag {% if params.x %} not closed"],
        ["SELECT {{ x", 1, 8, 'output "{{ x" not closed'],
        ["SELECT 1\n  {% frobnicate %}", 2, 3, 'tag "frobnicate" not found'],
      ] as const
    ) {
      await refuses(svc.create(ctx, sql("bad/one", body)), "template.render.syntax_error", 400, {
        template: "bad/one",
        line,
        column,
        message,
      });
    }
    await refuses(
      svc.create(ctx, sql("bad/two", "{% render 'nope' %}")),
      "template.render.unknown_import",
      400,
      {
        name: "nope",
        line: 1,
        column: 1,
      },
    );
    await refuses(svc.get(workspaceId, "bad/one"), "template.not_found", 404);
    equal(await versionRows(db), before, "no version row");
    equal((await audits(db, "template.created")).length, 0);
    // The refused saves consumed no number: the next create still gets version 1.
    equal(
      (await svc.create(ctx, sql("ok/one", "SELECT {% if params.x %}:x{% endif %}"))).version,
      1,
    );
    // html templates are not rendered by the service; their body is stored as given.
    const html = await svc.create(ctx, htmlTemplate("mail/raw", "<p>{% if</p>", "Raw"));
    equal(html.status, "DRAFT");
  },
);

forEachStore(
  "update() refuses Liquid that does not parse over a draft and over a release",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const t = await svc.create(ctx, sql("ops/q", "SELECT 1"));
    await refuses(
      svc.update(ctx, t.body_hash, sql("ops/q", UNCLOSED_IF)),
      "template.render.syntax_error",
      400,
      { template: "ops/q", line: 2, column: 8 },
    );
    const draft = await svc.get(workspaceId, "ops/q");
    deepEqual([draft.version, draft.body, draft.body_hash], [1, "SELECT 1", t.body_hash]);
    const released = await svc.release(ctx, "ops/q", t.body_hash);
    const rows = await versionRows(db);
    await refuses(
      svc.update(ctx, released.body_hash, sql("ops/q", "SELECT {{ x")),
      "template.render.syntax_error",
      400,
      { line: 1, column: 8 },
    );
    equal(await versionRows(db), rows, "no draft was opened");
    const read = await svc.get(workspaceId, "ops/q");
    deepEqual([read.status, read.draft, read.current_version], ["RELEASED", null, 1]);
    const next = await svc.update(ctx, released.body_hash, sql("ops/q", "SELECT 2"));
    equal(next.version, 2, "the refused write took no number");
  },
);

forEachStore(
  "the library import refuses a body that does not parse and keeps nothing",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    await refuses(
      svc.importLibrary(ctx, {
        templates: [
          { id: "lib/good", dialect: "DUCKDB", body: "SELECT 1" },
          { id: "lib/bad", dialect: "DUCKDB", body: "{% if %}" },
        ],
      }),
      "template.render.syntax_error",
      400,
      { template: "lib/bad", line: 1 },
    );
    await refuses(svc.get(workspaceId, "lib/good"), "template.not_found", 404);
  },
);
