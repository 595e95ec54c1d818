/**
 * Pipeline references, release and promotion over HTTP, on both stores: datasource visibility and
 * readonly, html templates, self reference, datasource.in_use, folders and filters, cross-workspace
 * 404s, the pinned-template cascade, release checks on a real SQLite datasource, and export →
 * import into a fresh instance byte for byte.
 */
import { deepEqual, equal } from "node:assert/strict";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { call } from "./support/harness.ts";
import {
  bothStores,
  dql,
  ORDER_CHECKS,
  P,
  pipe,
  sqliteFile,
  sqliteSource,
  whCheck,
} from "./support/pipeline_client.ts";
import { expectError } from "./support/template_client.ts";

bothStores(
  "references: datasources visible and writable, html templates, self reference; datasource.in_use; cross-workspace 404",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
      const file = await sqliteFile();
      for (const [name, readonly] of [["wh", false], ["ro", true]] as const) {
        const ds = await req(
          "POST",
          "/api/v1/datasources",
          admin,
          sqliteSource(name, file, { readonly }),
        );
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
      // A lake is read in place: read-only though its flag was never set.
      const lake = await req("POST", "/api/v1/datasources", admin, {
        name: "lake",
        display_name: "lake",
        dialect: "LAKE",
        jdbc_url: `jdbc:lake:file://${file}.lake`,
        credential: { kind: "none" },
        workspace: "acme",
      });
      equal(lake.status, 201, JSON.stringify(lake.body));
      equal(lake.body.data.readonly, false);
      await graph(
        pipe("r/lake", {
          nodes: [{ id: "w", type: "DML", source: "lake", sql: "DELETE FROM sales.orders" }],
        }),
        "readonly_datasource",
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
      await req("POST", "/api/v1/datasources", admin, sqliteSource("wh", file));
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
          checks: ORDER_CHECKS,
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
          checks: [
            whCheck("rows", "Rows", "SELECT id FROM orders", { kind: "value", value: 1 }),
            whCheck("write", "Write", "DELETE FROM orders", { kind: "value", value: 1 }),
          ],
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
      // Byte for byte: same id (free in the fresh instance), number, hash, body and key order;
      // only the release stamp is the importing instance's own.
      equal(
        JSON.stringify({ ...back, released_at: null }),
        JSON.stringify({ ...exported, released_at: null }),
      );
      equal(back.id, exported.id);
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
