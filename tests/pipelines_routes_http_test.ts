/**
 * Pipeline routes the other tests only refuse or touch once, on both stores: an ineligible switch
 * and unknown versions on every version route, a draft purged by version, export with and without
 * its pinned templates, concurrent saves over HTTP; and an export carried between a SQLite and a
 * PostgreSQL instance byte for byte.
 */
import { deepEqual, equal } from "node:assert/strict";
import { bothStores, P, pipe } from "./support/pipeline_client.ts";
import { skipUnless } from "./support/services.ts";
import { create, expectError, T, withWorld, type World } from "./support/template_client.ts";
import { dql } from "./support/pipeline_body.ts";

const BAD_FIELD = "pipeline.execution.invalid_parameter_type";

/** Pipeline `name` (with `fields`) released as version 1, then a second draft saved over it. */
async function releasedThenDraft(
  { h, req }: World,
  name: string,
  fields: Record<string, unknown> = {},
) {
  const p = (await req("POST", P, h.author, pipe(name, fields))).body.data;
  const release = await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash);
  const rel = release.body.data;
  const draft = pipe(name, { ...fields, description: "2" });
  const d2 = (await req("PUT", `${P}/${p.id}`, h.author, draft, rel.body_hash)).body.data;
  return { p, rel, d2 };
}

bothStores(
  "switch, discard, restore and purge name unknown and ineligible versions",
  async (withWorld) => {
    await withWorld(async (w) => {
      const { h, req } = w;
      const { p, d2 } = await releasedThenDraft(w, "sw/a");
      await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, d2.body_hash);
      await req("POST", `${P}/${p.id}/versions/1/discard`, h.author);
      const ne = expectError(
        await req("POST", `${P}/${p.id}/current`, h.author, { version: 1 }),
        409,
        "pipeline.version.not_eligible",
      );
      equal(ne.version, 1);
      for (
        const [method, path, body] of [
          ["POST", `${P}/${p.id}/current`, { version: 9 }],
          ["POST", `${P}/${p.id}/versions/9/discard`, undefined],
          ["POST", `${P}/${p.id}/versions/9/restore`, undefined],
          ["DELETE", `${P}/${p.id}/versions/9`, undefined],
          ["GET", `${P}/${p.id}/versions/9/checks`, undefined],
        ] as const
      ) {
        expectError(await req(method, path, h.author, body), 404, "pipeline.execution.not_found");
      }
      expectError(
        await req("POST", `${P}/${p.id}/current`, h.author, { version: "2" }),
        400,
        BAD_FIELD,
      );
      const missing = crypto.randomUUID();
      expectError(await req("GET", `${P}/${missing}`, h.author), 404, "pipeline.not_found");
      expectError(await req("GET", `${P}/not-a-uuid`, h.author), 404, "pipeline.not_found");
    });
  },
);

bothStores(
  "a draft purged by version gives its number back; export carries pinned templates unless told not to",
  async (withWorld) => {
    await withWorld(async (w) => {
      const { h, req } = w;
      const t = (await req(
        "POST",
        T,
        h.author,
        create("ex/base", "SELECT 1 AS x", {
          dialect: "DUCKDB",
        }),
      )).body.data;
      await req("POST", `${T}/release`, h.promoter, { name: "ex/base" }, t.body_hash);
      const node = dql("a", { source: "tempdb", template: { id: "ex/base", version: 1 } });
      const { p, rel, d2 } = await releasedThenDraft(w, "ex/p", { nodes: [node] });
      equal(d2.version, 2);
      equal((await req("DELETE", `${P}/${p.id}/versions/2`, h.author)).status, 204);
      const after = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      deepEqual([after.version, after.status, after.draft], [1, "RELEASED", null]);
      const d2again = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("ex/p", { nodes: [node], description: "again" }),
        rel.body_hash,
      );
      equal(d2again.body.data.version, 2, "the purged number returns to the pool");

      const out = (await req("GET", `${P}/${p.id}/export`, h.author)).body.data;
      deepEqual([out.pipeline.version, out.manifest.template_count], [1, 1]);
      deepEqual(
        out.templates.map((x: { id: string; version: number; body: string }) => [
          x.id,
          x.version,
          x.body,
        ]),
        [["ex/base", 1, "SELECT 1 AS x"]],
      );
      const bare = (await req("GET", `${P}/${p.id}/export?include_templates=false`, h.author)).body
        .data;
      deepEqual([bare.templates, bare.manifest.template_count], [[], 0]);
    });
  },
);

bothStores(
  "concurrent saves over HTTP with one If-Match: exactly one wins, the rest are stale",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const p = (await req("POST", P, h.author, pipe("race/a"))).body.data;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          req(
            "PUT",
            `${P}/${p.id}`,
            h.author,
            pipe("race/a", { description: `w${i}` }),
            p.body_hash,
          )),
      );
      const won = answers.filter((a) => a.status === 200);
      equal(won.length, 1, JSON.stringify(answers.map((a) => a.status)));
      for (const lost of answers.filter((a) => a.status !== 200)) {
        equal(
          expectError(lost, 409, "pipeline.version.conflict").current_hash,
          won[0].body.data.body_hash,
        );
      }
      const read = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      deepEqual([read.version, read.body_hash], [1, won[0].body.data.body_hash]);
    });
  },
);

Deno.test({
  name: "export from SQLite imports into PostgreSQL and back byte for byte: same id, number, hash",
  ignore: skipUnless("postgres"),
  async fn() {
    const exportOf = async (w: World, id: string) =>
      (await w.req("GET", `${P}/${id}/export`, w.h.author)).body.data.pipeline;
    let fromSqlite: Record<string, unknown> = {};
    await withWorld(async (w) => {
      const p = (await w.req("POST", P, w.h.author, pipe("x/one", { description: "ü €" }))).body
        .data;
      await w.req("POST", `${P}/${p.id}/release`, w.h.promoter, undefined, p.body_hash);
      fromSqlite = await exportOf(w, p.id);
    }, "sqlite");
    let fromPostgres: Record<string, unknown> = {};
    await withWorld(async (w) => {
      const imported = await w.req("POST", `${P}/import`, w.h.author, fromSqlite);
      equal(imported.status, 201, JSON.stringify(imported.body));
      fromPostgres = await exportOf(w, imported.body.data.id);
    }, "postgres");
    const bytes = (x: Record<string, unknown>) => JSON.stringify({ ...x, released_at: null });
    equal(bytes(fromPostgres), bytes(fromSqlite));
    await withWorld(async (w) => {
      const back = await w.req("POST", `${P}/import`, w.h.author, fromPostgres);
      equal(back.status, 201, JSON.stringify(back.body));
      equal(bytes(await exportOf(w, back.body.data.id)), bytes(fromSqlite));
    }, "sqlite");
  },
});
