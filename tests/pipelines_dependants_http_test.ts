/**
 * What depends on a pipeline, on both stores: a live parent exact-pinning a version refuses its
 * discard; an entity delete reports (and on request purges) the draft-only templates it alone
 * pins; a workspace holding pipelines or templates is `workspace.in_use`; a datasource any stored
 * pipeline version names is `datasource.in_use`; the hardened posture refuses every
 * authoring route of pipelines and templates with `pipeline.authoring.disabled`.
 */
import { deepEqual, equal } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, withTestServer } from "./support/harness.ts";
import { bodyHash } from "../src/lib/canonical_json.ts";
import { applyReleasedImport, verifyReleasedImport } from "../src/pipelines/mod.ts";
import { bothStores, dql, P, pipe, sqliteFile } from "./support/pipeline_client.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { create, expectError, T } from "./support/template_client.ts";

bothStores(
  "a pinned version cannot be discarded; exclusive draft templates go with the entity on request",
  async (withWorld) => {
    await withWorld(async ({ h, req }) => {
      const child = (await req("POST", P, h.author, pipe("dep/child"))).body.data;
      await req("POST", `${P}/${child.id}/release`, h.promoter, undefined, child.body_hash);
      const parent = await req(
        "POST",
        P,
        h.author,
        pipe("dep/parent", {
          nodes: [{ id: "c", type: "PIPELINE", pipeline: { id: child.id, version: 1 } }],
        }),
      );
      equal(parent.status, 201, JSON.stringify(parent.body));
      expectError(
        await req("POST", `${P}/${child.id}/versions/1/discard`, h.author),
        409,
        "pipeline.version.pinned",
      );

      for (const id of ["dep/only", "dep/shared"]) {
        await req("POST", "/api/v1/templates", h.author, {
          id,
          dialect: "SQLITE",
          display_name: id,
          body: "SELECT 1",
        });
      }
      const pin = (id: string) => ({
        id: "a",
        type: "DQL",
        source: "tempdb",
        template: { id, version: 1 },
      });
      const a =
        (await req("POST", P, h.author, pipe("dep/a", { nodes: [pin("dep/only")] }))).body.data;
      await req("POST", P, h.author, pipe("dep/b", { nodes: [pin("dep/shared")] }));
      const c =
        (await req("POST", P, h.author, pipe("dep/c", { nodes: [pin("dep/shared")] }))).body.data;

      const kept = await req("DELETE", `${P}/${c.id}`, h.author);
      deepEqual(kept.body.data, {
        purged: true,
        exclusive_draft_templates: [],
        exclusive_draft_templates_purged: false,
      });
      const gone = await req(
        "DELETE",
        `${P}/${a.id}?include_exclusive_draft_templates=true`,
        h.author,
      );
      deepEqual(gone.body.data, {
        purged: true,
        exclusive_draft_templates: ["dep/only"],
        exclusive_draft_templates_purged: true,
      });
      expectError(
        await req("GET", "/api/v1/templates?name=dep/only", h.author),
        404,
        "template.not_found",
      );
      equal((await req("GET", "/api/v1/templates?name=dep/shared", h.author)).status, 200);
      expectError(
        await req("DELETE", "/api/v1/templates?name=dep/shared", h.author),
        409,
        "template.in_use",
      );
    });
  },
);

bothStores("a workspace holding pipelines or templates is in use", async (withWorld) => {
  await withWorld(async ({ s, f, h, req }) => {
    await req("POST", P, h.author, pipe("ws/one", { nodes: [dql()] }));
    await req("POST", T, h.author, create("ws/t1"));
    await req("POST", T, h.author, create("ws/t2"));
    const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
    const refused = expectError(
      await req("DELETE", "/api/v1/workspaces/acme", admin),
      409,
      "workspace.in_use",
    );
    deepEqual(refused.counts, { pipelines: 1, templates: 2 });
    // Templates alone hold a workspace too.
    const beta = await seedRoles(s.runtime, "beta");
    const betaAuthor = await sessionHeaders(s.runtime, beta.users.author, "beta");
    equal((await req("POST", T, betaAuthor, create("ws/only"))).status, 201);
    const onlyTemplates = expectError(
      await req("DELETE", "/api/v1/workspaces/beta", admin),
      409,
      "workspace.in_use",
    );
    deepEqual(onlyTemplates.counts, { templates: 1 });
  });
});

forEachStoreKind(
  "hardened posture: authoring routes and import are 403 pipeline.authoring.disabled; switch and reads answer",
  async (store) => {
    await withTestServer({
      store,
      env: { SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "false" },
    }, async (s) => {
      const f = await seedRoles(s.runtime);
      const author = await sessionHeaders(s.runtime, f.users.author, "acme");
      const promoter = await sessionHeaders(s.runtime, f.users.promoter, "acme");
      const off = "pipeline.authoring.disabled";
      expectError(await call(s, "POST", P, author, pipe("hard/one")), 403, off);
      // Content reaches a hardened deployment released, only by promotion: the import route is
      // refused like every authoring route, and the receiver's own apply step lands it here.
      const body = pipe("hard/two");
      const payload = { ...body, version: 4, body_hash: bodyHash(body) };
      expectError(await call(s, "POST", `${P}/import`, author, payload), 403, off);
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const imported = await s.runtime.db.transaction((tx) =>
        applyReleasedImport(s.runtime.pipelines, tx, ctx, verifyReleasedImport(payload))
      );
      equal(imported.created, true);
      const id = imported.pipeline.id;
      const hash = String(imported.pipeline.body_hash);
      const at = (h: Record<string, string>, ifMatch: string) => ({ ...h, "If-Match": ifMatch });
      for (
        const [method, path, who, payload] of [
          ["PUT", `${P}/${id}`, at(author, hash), pipe("hard/two", { description: "x" })],
          ["POST", `${P}/${id}/release`, at(promoter, hash), undefined],
          ["POST", `${P}/${id}/draft/discard`, at(author, hash), undefined],
          ["POST", `${P}/${id}/versions/4/discard`, author, undefined],
          ["POST", `${P}/${id}/versions/4/restore`, author, undefined],
          ["DELETE", `${P}/${id}/versions/4`, author, undefined],
          ["DELETE", `${P}/${id}`, author, undefined],
          ["POST", T, author, create("hard/t")],
          ["POST", `${T}/import`, author, {
            templates: [{ id: "lib/x", dialect: "DUCKDB", body: "SELECT 1" }],
          }],
          // Posture first, as for pipelines: an unknown template name is 403 too, not 404.
          ["PUT", T, at(author, hash), { ...create("hard/none"), id: "hard/none" }],
          ["POST", `${T}/release`, at(promoter, hash), { name: "hard/none" }],
          ["POST", `${T}/draft/discard`, at(author, hash), { name: "hard/none" }],
          ["POST", `${T}/version/discard`, author, { name: "hard/none", version: 4 }],
          ["POST", `${T}/version/restore`, author, { name: "hard/none", version: 4 }],
          ["DELETE", `${T}/version?name=hard/none&version=4`, author, undefined],
          ["DELETE", `${T}?name=hard/none`, author, undefined],
        ] as const
      ) {
        expectError(await call(s, method, path, who, payload), 403, off);
      }
      const switched = await call(s, "POST", `${P}/${id}/current`, author, { version: 4 });
      deepEqual([switched.status, switched.body.data.current_version], [200, 4]);
      const read = await call(s, "GET", `${P}/${id}`, author);
      deepEqual([read.status, read.body.data.version, read.body.data.status], [
        200,
        4,
        "RELEASED",
      ]);
      equal((await call(s, "GET", `${P}?prefix=`, author)).status, 200);
      equal((await call(s, "GET", `${T}?prefix=`, author)).status, 200);
    });
  },
);

bothStores(
  "deleting a datasource names every referencing pipeline version: draft, released and discarded",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
      const made = await req("POST", "/api/v1/datasources", admin, {
        name: "wh",
        display_name: "wh",
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${await sqliteFile()}`,
        credential: { kind: "none" },
        workspace: "acme",
      });
      equal(made.status, 201, JSON.stringify(made.body));
      const at = (description: string) =>
        pipe("ds/users", { description, nodes: [dql({ id: "load", source: "wh" })] });
      const p = (await req("POST", P, h.author, at("1"))).body.data;
      const r1 = (await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash))
        .body.data;
      const d2 = (await req("PUT", `${P}/${p.id}`, h.author, at("2"), r1.body_hash)).body.data;
      const r2 = (await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, d2.body_hash))
        .body.data;
      equal((await req("POST", `${P}/${p.id}/versions/1/discard`, h.author)).status, 200);
      await req("PUT", `${P}/${p.id}`, h.author, at("3"), r2.body_hash);
      // A pipeline on the staging database alone does not block the delete.
      await req("POST", P, h.author, pipe("ds/other"));
      const refused = expectError(
        await req("DELETE", "/api/v1/datasources/wh", admin),
        409,
        "datasource.in_use",
      );
      deepEqual(refused.referencing_pipelines, ["ds/users"]);
      deepEqual(
        (refused.references as { pipeline_version: number; version_status: string }[])
          .map((r) => [r.pipeline_version, r.version_status])
          .sort(),
        [[1, "DISCARDED"], [2, "RELEASED"], [3, "DRAFT"]],
      );
      equal((await req("GET", "/api/v1/datasources/wh", admin)).status, 200, "still there");
    });
  },
);
