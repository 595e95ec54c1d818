/**
 * Pipeline authoring over HTTP (spec 2 §4.1 all but execute): lifecycle rows, bad input with its
 * codes, references, release with pinned templates and checks against a real SQLite datasource,
 * datasource.in_use, folders and filters, cross-workspace 404s, and export → import into a fresh
 * instance byte for byte.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { sessionHeaders } from "./access_fixtures.ts";
import { call } from "./harness.ts";
import { skipUnless } from "./services.ts";
import { STORE_KINDS, type StoreKind } from "./stores.ts";
import { expectError, withWorld as withWorldOn } from "./template_client.ts";

/** Every test here runs on both stores: `[sqlite] …` and `[postgres] …`. */
function bothStores(name: string, fn: (withWorld: typeof withWorldOn) => Promise<void>) {
  for (const kind of STORE_KINDS) {
    Deno.test({
      name: `[${kind}] ${name}`,
      ignore: kind === "postgres" && skipUnless("postgres"),
      fn: () => fn((body) => withWorldOn(body, kind as StoreKind)),
    });
  }
}

const P = "/api/v1/pipelines";
const dql = (extra: Record<string, unknown> = {}) => ({
  id: "a",
  type: "DQL",
  source: "tempdb",
  sql: "SELECT 1 AS x",
  ...extra,
});
const pipe = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  nodes: [dql()],
  ...extra,
});

async function sqliteFile(): Promise<string> {
  const path = `${await Deno.makeTempDir({ prefix: "svc_chk_" })}/warehouse.db`;
  const db = new DatabaseSync(path);
  db.exec(
    "CREATE TABLE orders (id INTEGER, amount INTEGER); INSERT INTO orders VALUES (1, 10), (2, 32);",
  );
  db.close();
  return path;
}

bothStores(
  "pipeline lifecycle over HTTP: create, read, If-Match, release, first write, no-op, discard, restore, switch, purge",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const created = await req(
        "POST",
        P,
        h.author,
        pipe("sales/daily", {
          parameters: { day: { type: "date", required: false } },
          nodes: [
            {
              id: "calc",
              type: "CALCULATOR",
              calculator: { name: "today", writes: { value: "run_day" } },
            },
            dql({ depends_on: ["calc"] }),
          ],
        }),
      );
      equal(created.status, 201, JSON.stringify(created.body));
      const p = created.body.data;
      deepEqual([p.version, p.status, p.current_version, p.name], [
        1,
        "DRAFT",
        null,
        "sales/daily",
      ]);
      equal(p.draft.version, 1);
      equal(p.draft.body_hash, p.body_hash);
      ok(p.body_hash.startsWith("sha256:"));

      const read = (await req("GET", `${P}/${p.id}`, h.author)).body.data;
      equal(read.parameters.run_day.derived, true, "derived parameters are listed on read");
      equal(read.parameters.day.type, "date");

      const body2 = pipe("sales/daily", { description: "v2" });
      expectError(
        await req("PUT", `${P}/${p.id}`, h.author, body2),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      const stale = expectError(
        await req("PUT", `${P}/${p.id}`, h.author, body2, "sha256:" + "0".repeat(64)),
        409,
        "pipeline.version.conflict",
      );
      equal(stale.current_hash, p.body_hash);
      const saved = await req("PUT", `${P}/${p.id}`, h.author, body2, p.body_hash);
      deepEqual([saved.status, saved.body.data.version, saved.body.data.status], [200, 1, "DRAFT"]);

      // Release needs the promote role; the author is refused, the promoter releases.
      expectError(
        await req("POST", `${P}/${p.id}/release`, h.author, undefined, saved.body.data.body_hash),
        403,
        "auth.role_required",
      );
      const rel = await req(
        "POST",
        `${P}/${p.id}/release`,
        h.promoter,
        undefined,
        saved.body.data.body_hash,
      );
      deepEqual([rel.status, rel.body.data.status, rel.body.data.current_version], [
        200,
        "RELEASED",
        1,
      ]);
      expectError(
        await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, saved.body.data.body_hash),
        409,
        "pipeline.version.not_draft",
      );

      // Identical body to the release with no draft: nothing written, RELEASED reported.
      const same = await req("PUT", `${P}/${p.id}`, h.author, body2, rel.body.data.body_hash);
      deepEqual([same.body.data.version, same.body.data.status], [1, "RELEASED"]);
      const v2 = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("sales/daily", { description: "v3" }),
        rel.body.data.body_hash,
      );
      deepEqual([v2.body.data.version, v2.body.data.status, v2.body.data.current_version], [
        2,
        "DRAFT",
        1,
      ]);
      const rel2 = await req(
        "POST",
        `${P}/${p.id}/release`,
        h.promoter,
        undefined,
        v2.body.data.body_hash,
      );
      equal(rel2.body.data.current_version, 2);

      const versions = (await req("GET", `${P}/${p.id}/versions`, h.author)).body.data.items;
      deepEqual(versions.map((v: { version: number; status: string }) => [v.version, v.status]), [[
        1,
        "RELEASED",
      ], [2, "RELEASED"]]);
      equal((await req("GET", `${P}/${p.id}/versions/1`, h.author)).body.data.description, "v2");
      expectError(
        await req("GET", `${P}/${p.id}/versions/9`, h.author),
        404,
        "pipeline.execution.not_found",
      );

      // Session-only transitions: a key is refused; the author's session acts.
      expectError(
        await req("POST", `${P}/${p.id}/versions/2/discard`, h.key),
        403,
        "auth.session.required",
      );
      const disc = await req("POST", `${P}/${p.id}/versions/2/discard`, h.author);
      deepEqual([disc.status, disc.body.data.current_version], [200, 1]);
      expectError(
        await req("POST", `${P}/${p.id}/versions/2/discard`, h.author),
        409,
        "pipeline.version.not_released",
      );
      expectError(
        await req("POST", `${P}/${p.id}/versions/1/restore`, h.author),
        409,
        "pipeline.version.not_discarded",
      );
      equal(
        (await req("POST", `${P}/${p.id}/versions/2/restore`, h.author)).body.data.current_version,
        2,
      );
      equal(
        (await req("POST", `${P}/${p.id}/current`, h.author, { version: 1 })).body.data
          .current_version,
        1,
      );
      expectError(
        await req("DELETE", `${P}/${p.id}/versions/1`, h.author),
        409,
        "pipeline.version.last_release",
      );
      expectError(
        await req("DELETE", `${P}/${p.id}`, h.author),
        409,
        "pipeline.version.last_release",
      );

      // A draft purged by the draft discard route; its number returns to the pool.
      const d3 = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("sales/daily", { description: "v4" }),
        rel.body.data.body_hash,
      );
      equal(d3.body.data.version, 3);
      expectError(
        await req("POST", `${P}/${p.id}/draft/discard`, h.author),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      equal(
        (await req(
          "POST",
          `${P}/${p.id}/draft/discard`,
          h.author,
          undefined,
          d3.body.data.body_hash,
        ))
          .status,
        204,
      );

      // Entity delete of a sole draft.
      const lone = (await req("POST", P, h.author, pipe("sales/lone"))).body.data;
      const del = await req("DELETE", `${P}/${lone.id}`, h.author);
      deepEqual(del.body.data, {
        purged: true,
        exclusive_draft_templates: [],
        exclusive_draft_templates_purged: false,
      });
      expectError(await req("GET", `${P}/${lone.id}`, h.author), 404, "pipeline.not_found");
    });
  },
);

bothStores(
  "pipeline bad input answers its code: names, graph, node types, parameters, size, JSON, foreign If-Match",
  async (withWorld) => {
    await withWorld(async ({ s, h, req }) => {
      const nameCase = async (name: string, reason: string) => {
        const d = expectError(
          await req("POST", P, h.author, pipe(name)),
          400,
          "pipeline.validation.name_invalid",
        );
        equal(d.reason, reason, name);
      };
      await nameCase("flat", "folder_required");
      await nameCase("Upper/case", "grammar");
      await nameCase("a//b", "grammar");
      await nameCase("-a/b", "grammar");
      await nameCase(`a/${"b".repeat(198)}`, "grammar");
      await nameCase(Array.from({ length: 11 }, (_, i) => `s${i}`).join("/"), "grammar");
      equal(
        (await req("POST", P, h.author, pipe(`a/${"b".repeat(62)}/${"c".repeat(63)}`))).status,
        201,
      );

      const cyc = expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/cycle", {
            nodes: [
              dql({ id: "a", depends_on: ["b"], output: { target: "tempdb", table: "t" } }),
              dql({ id: "b", depends_on: ["a"] }),
            ],
          }),
        ),
        400,
        "pipeline.validation.cycle_detected",
      );
      ok(Array.isArray(cyc.cycle_path));
      const two = expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/callers", {
            nodes: [dql({ id: "a" }), dql({ id: "b" })],
          }),
        ),
        400,
        "pipeline.validation.graph_invalid",
      );
      equal(two.reason, "multiple_caller_nodes");
      expectError(
        await req("POST", P, h.author, pipe("bad/type", { nodes: [dql({ type: "PYTHON" })] })),
        400,
        "pipeline.validation.node_invalid",
      );
      expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/params", { parameters: { n: { type: "integer", default: "x" } } }),
        ),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      expectError(
        await req(
          "POST",
          P,
          h.author,
          pipe("bad/unknown", { nodes: [dql({ depends_on: ["zz"] })] }),
        ),
        400,
        "pipeline.validation.graph_invalid",
      );

      const big = await s.fetch(P, {
        method: "POST",
        headers: { ...h.author, "content-type": "application/json" },
        body: JSON.stringify(pipe("bad/big", { description: "x".repeat(10 * 1024 * 1024) })),
      });
      equal(big.status, 413);
      equal((await big.json()).error.code, "request.body_too_large");
      const junk = await s.fetch(P, {
        method: "POST",
        headers: { ...h.author, "content-type": "application/json" },
        body: "{not json",
      });
      equal((await junk.json()).error.code, "request.malformed_json");

      const a = (await req("POST", P, h.author, pipe("ok/a"))).body.data;
      const b = (await req("POST", P, h.author, pipe("ok/b"))).body.data;
      expectError(
        await req("PUT", `${P}/${a.id}`, h.author, pipe("ok/a"), b.body_hash),
        409,
        "pipeline.version.conflict",
      );
      const dup = await req("PUT", `${P}/${a.id}`, h.author, pipe("ok/b"), a.body_hash);
      expectError(dup, 409, "pipeline.validation.duplicate_name");
    });
  },
);

bothStores(
  "references: datasources visible and writable, html templates, self reference; datasource.in_use; cross-workspace 404",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
      const file = await sqliteFile();
      for (const [name, readonly] of [["wh", false], ["ro", true]] as const) {
        const ds = await req("POST", "/api/v1/datasources", admin, {
          name,
          display_name: name,
          dialect: "SQLITE",
          jdbc_url: `jdbc:sqlite:${file}`,
          credential: { kind: "none" },
          workspace: "acme",
          readonly,
        });
        equal(ds.status, 201, JSON.stringify(ds.body));
      }
      const graph = async (body: unknown, reason: string) =>
        equal(
          expectError(
            await req("POST", P, h.author, body),
            400,
            "pipeline.validation.graph_invalid",
          )
            .reason,
          reason,
        );
      await graph(pipe("r/unknown", { nodes: [dql({ source: "nowhere" })] }), "unknown_datasource");
      await graph(
        pipe("r/ro", {
          nodes: [{ id: "w", type: "DML", source: "ro", sql: "DELETE FROM orders" }],
        }),
        "readonly_datasource",
      );
      equal(
        (await req("POST", P, h.author, pipe("r/reads-ro", { nodes: [dql({ source: "ro" })] })))
          .status,
        201,
      );

      const html = await req("POST", "/api/v1/templates", h.author, {
        id: "views/page",
        type: "html",
        display_name: "Page",
        body: "<p>hi</p>",
      });
      equal(html.status, 201, JSON.stringify(html.body));
      await graph(
        pipe("r/html", {
          nodes: [{
            id: "a",
            type: "DQL",
            source: "wh",
            template: { id: "views/page", version: 1 },
          }],
        }),
        "html_template",
      );

      const parent =
        (await req("POST", P, h.author, pipe("r/parent", { nodes: [dql({ source: "wh" })] }))).body
          .data;
      const child = (await req(
        "POST",
        P,
        h.author,
        pipe("r/child", { nodes: [{ id: "c", type: "PIPELINE", pipeline: { id: parent.id } }] }),
      )).body.data;
      const loop = await req(
        "PUT",
        `${P}/${parent.id}`,
        h.author,
        pipe("r/parent", { nodes: [{ id: "p", type: "PIPELINE", pipeline: { id: child.id } }] }),
        parent.body_hash,
      );
      equal(expectError(loop, 400, "pipeline.validation.graph_invalid").reason, "self_reference");

      const inUse = expectError(
        await req("DELETE", "/api/v1/datasources/wh", admin),
        409,
        "datasource.in_use",
      );
      equal(inUse.datasource_name, "wh");
      deepEqual(inUse.references, [{
        pipeline: "r/parent",
        node_id: "a",
        pipeline_version: 1,
        version_status: "DRAFT",
      }]);

      const list = (await req("GET", `${P}?datasource=wh`, h.author)).body.data;
      deepEqual(list.items.map((r: { name: string }) => r.name), ["r/parent"]);
      const q = (await req("GET", `${P}?q=r/ch`, h.author)).body.data;
      deepEqual(q.items.map((r: { name: string }) => r.name), ["r/child"]);
      const owner =
        (await req("GET", `${P}?owner=${f.users.promoter.principal.userId}`, h.author)).body.data;
      equal(owner.pagination.total, 0);
      const root = (await req("GET", `${P}?prefix=`, h.author)).body.data;
      deepEqual(root.folders, [{ path: "r", segment: "r", pipeline_count: 3 }]);
      const level = (await req("GET", `${P}?prefix=r/&limit=2`, h.author)).body.data;
      deepEqual([level.prefix, level.total, level.has_more, level.pipelines.length], [
        "r",
        3,
        true,
        2,
      ]);
      deepEqual((await req("GET", `${P}?prefix=none`, h.author)).body.data.total, 0);

      // Another workspace sees none of it.
      await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "other" });
      const elsewhere = await sessionHeaders(s.runtime, f.users.super_admin, "other");
      expectError(await call(s, "GET", `${P}/${parent.id}`, elsewhere), 404, "pipeline.not_found");
    });
  },
);

bothStores(
  "release: pinned templates refused or cascaded; checks against a real SQLite datasource with override",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
      const file = await sqliteFile();
      await req("POST", "/api/v1/datasources", admin, {
        name: "wh",
        display_name: "wh",
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${file}`,
        credential: { kind: "none" },
        workspace: "acme",
      });
      const t = await req("POST", "/api/v1/templates", h.author, {
        id: "sql/orders",
        dialect: "SQLITE",
        display_name: "Orders",
        body: "SELECT * FROM orders",
      });
      equal(t.status, 201, JSON.stringify(t.body));
      const p = (await req(
        "POST",
        P,
        h.author,
        pipe("rel/orders", {
          nodes: [{
            id: "a",
            type: "DQL",
            source: "wh",
            template: { id: "sql/orders", version: 1 },
          }],
          checks: [
            {
              id: "total",
              name: "Total",
              datasource: "wh",
              query: "SELECT SUM(amount) FROM orders",
              expectation: { kind: "value", value: 42 },
            },
            {
              id: "count",
              name: "Count",
              datasource: "wh",
              query: "SELECT COUNT(*) FROM orders",
              expectation: { kind: "range", min: 5 },
            },
          ],
        }),
      )).body.data;
      const runs = (await req("POST", `${P}/${p.id}/versions/1/checks/run`, h.author)).body.data;
      deepEqual(
        runs.runs.map((r: { verdict: string; observed: string }) => [r.verdict, r.observed]),
        [["pass", "42"], ["fail", "2"]],
      );
      const latest =
        (await req("GET", `${P}/${p.id}/versions/1/checks`, h.author)).body.data.checks;
      deepEqual(latest.map((c: { latest_run: { verdict: string } }) => c.latest_run.verdict), [
        "pass",
        "fail",
      ]);

      const pinned = expectError(
        await req(
          "POST",
          `${P}/${p.id}/release?override_checks_reason=known%20small%20sample`,
          h.promoter,
          undefined,
          p.body_hash,
        ),
        409,
        "pipeline.release.template_not_released",
      );
      deepEqual([pinned.template_id, pinned.template_version, pinned.template_status], [
        "sql/orders",
        1,
        "DRAFT",
      ]);
      equal((pinned.pins_not_released as unknown[]).length, 1);

      const failed = expectError(
        await req(
          "POST",
          `${P}/${p.id}/release?release_pinned_templates=true`,
          h.promoter,
          undefined,
          p.body_hash,
        ),
        409,
        "pipeline.check.failed",
      );
      deepEqual((failed.checks as { check_id: string }[]).map((c) => c.check_id), ["count"]);
      equal(
        (await req("GET", `/api/v1/templates?name=sql/orders`, h.author)).body.data.status,
        "DRAFT",
        "the refusal rolled the cascade back",
      );
      expectError(
        await req(
          "POST",
          `${P}/${p.id}/release?release_pinned_templates=true&override_checks_reason=short`,
          h.promoter,
          undefined,
          p.body_hash,
        ),
        400,
        "pipeline.execution.invalid_parameter_type",
      );

      const done = await req(
        "POST",
        `${P}/${p.id}/release?release_pinned_templates=true&override_checks_reason=known%20small%20sample`,
        h.promoter,
        undefined,
        p.body_hash,
      );
      deepEqual([done.status, done.body.data.status], [200, "RELEASED"]);
      equal(
        (await req("GET", `/api/v1/templates?name=sql/orders`, h.author)).body.data.status,
        "RELEASED",
      );
      const audit = await s.runtime.db.query<{ event: string; details: string }>(
        "SELECT event, details FROM audit_log WHERE event IN ('pipeline.version.released', 'template.version.released')",
      );
      const tpl = audit.find((a) => a.event === "template.version.released")!;
      equal(JSON.parse(String(tpl.details)).cascade_from_pipeline_id, p.id);
      const pl = JSON.parse(
        String(audit.find((a) => a.event === "pipeline.version.released")!.details),
      );
      deepEqual(pl.templates_released, [{ id: "sql/orders", version: 1 }]);

      const bad = (await req(
        "POST",
        P,
        h.author,
        pipe("rel/bad", {
          checks: [{
            id: "rows",
            name: "Rows",
            datasource: "wh",
            query: "SELECT id FROM orders",
            expectation: { kind: "value", value: 1 },
          }, {
            id: "write",
            name: "Write",
            datasource: "wh",
            query: "DELETE FROM orders",
            expectation: { kind: "value", value: 1 },
          }],
        }),
      )).body.data;
      const errs =
        (await req("POST", `${P}/${bad.id}/versions/1/checks/run`, h.author)).body.data.runs;
      deepEqual(errs.map((r: { verdict: string }) => r.verdict), ["error", "error"]);
    });
  },
);

bothStores(
  "export then import into a fresh instance round-trips byte for byte; re-import is idempotent; conflicts",
  async (withWorld) => {
    let exported: Record<string, unknown> = {};
    await withWorld(async ({ h, req }) => {
      const p =
        (await req("POST", P, h.author, pipe("exp/one", { description: "é ünïcode" }))).body.data;
      expectError(
        await req("GET", `${P}/${p.id}/export`, h.author),
        409,
        "pipeline.promotion.not_released",
      );
      await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash);
      const second = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("exp/one", { description: "two" }),
        p.body_hash,
      );
      await req(
        "POST",
        `${P}/${second.body.data.id}/release`,
        h.promoter,
        undefined,
        second.body.data.body_hash,
      );
      const out = (await req("GET", `${P}/${p.id}/export`, h.author)).body.data;
      deepEqual(
        [out.manifest.pipeline_version, out.manifest.template_count, out.pipeline.version],
        [
          2,
          0,
          2,
        ],
      );
      exported = out.pipeline;
    });
    await withWorld(async ({ h, req }) => {
      const imported = await req("POST", `${P}/import`, h.author, exported);
      equal(imported.status, 201, JSON.stringify(imported.body));
      deepEqual(
        [imported.body.data.version, imported.body.data.body_hash, imported.body.data.status],
        [exported.version, exported.body_hash, "RELEASED"],
      );
      const again = await req("POST", `${P}/import`, h.author, exported);
      equal(again.status, 200);
      const back =
        (await req("GET", `${P}/${imported.body.data.id}/export`, h.author)).body.data.pipeline;
      deepEqual({ ...back, released_at: null, id: null }, {
        ...exported,
        released_at: null,
        id: null,
      });
      expectError(
        await req("POST", `${P}/import`, h.author, { ...exported, description: "changed" }),
        409,
        "pipeline.import.hash_mismatch",
      );
      const { body_hash: _, ...rest } = exported;
      const changed = { ...rest, description: "changed" };
      const { bodyHash } = await import("../src/lib/canonical_json.ts");
      const portable = { ...changed };
      delete (portable as Record<string, unknown>).id;
      delete (portable as Record<string, unknown>).version;
      delete (portable as Record<string, unknown>).released_at;
      expectError(
        await req("POST", `${P}/import`, h.author, { ...changed, body_hash: bodyHash(portable) }),
        409,
        "pipeline.import.version_conflict",
      );
      expectError(
        await req("POST", `${P}/import`, h.author, {
          ...pipe("exp/ds", { nodes: [dql({ source: "absent" })] }),
          version: 1,
          body_hash: "sha256:x",
        }),
        409,
        "pipeline.import.hash_mismatch",
      );
      const missing = pipe("exp/ds", { nodes: [dql({ source: "absent" })] });
      expectError(
        await req("POST", `${P}/import`, h.author, {
          ...missing,
          version: 1,
          body_hash: bodyHash(missing),
        }),
        409,
        "pipeline.import.missing_datasource",
      );
      const tmiss = pipe("exp/tpl", {
        nodes: [{
          id: "a",
          type: "DQL",
          source: "tempdb",
          template: { id: "no/such", version: 1 },
        }],
      });
      expectError(
        await req("POST", `${P}/import`, h.author, {
          ...tmiss,
          version: 1,
          body_hash: bodyHash(tmiss),
        }),
        409,
        "pipeline.import.missing_template",
      );
    });
  },
);
