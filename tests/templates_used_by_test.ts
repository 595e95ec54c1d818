/**
 * `templates_used_by` (spec 1 §4.7; no REST twin): which stored pipeline and template versions
 * pin a template, read through the template service as the tool endpoint will call it, on both
 * stores, never across workspaces.
 */
import { deepEqual, equal } from "node:assert/strict";
import { bothStores, P, pipe } from "./support/pipeline_client.ts";
import { create, T } from "./support/template_client.ts";
import { refuses } from "./support/refusals.ts";
import { dql } from "./support/pipeline_body.ts";

bothStores(
  "templates_used_by names pinning pipelines and importing templates",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const sqlite = (id: string, body = "SELECT 1", extra = {}) =>
        create(id, body, { dialect: "SQLITE", ...extra });
      equal((await req("POST", T, h.author, sqlite("lib/where", "WHERE 1 = 1"))).status, 201);
      const draft = (await req("GET", `${T}?name=lib/where`, h.author)).body.data;
      await req("POST", `${T}/release?name=lib/where`, h.promoter, undefined, draft.body_hash);
      const user = await req(
        "POST",
        T,
        h.author,
        sqlite("q/user", "SELECT 1 {% render 'w' %}", {
          imports: [{ alias: "w", id: "lib/where", version: 1 }],
        }),
      );
      equal(user.status, 201, JSON.stringify(user.body));
      const node = dql("a", { source: "tempdb", template: { id: "lib/where", version: 1 } });
      const made = await req("POST", P, h.author, pipe("uses/where", { nodes: [node] }));
      equal(made.status, 201, JSON.stringify(made.body));
      await req("POST", P, h.author, pipe("uses/nothing"));

      const ws = f.workspace.id;
      const expected = [
        {
          kind: "pipeline",
          id: made.body.data.id,
          name: "uses/where",
          version: 1,
          status: "DRAFT",
          pinned_version: 1,
        },
        {
          kind: "template",
          id: "q/user",
          name: "q/user",
          version: 1,
          status: "DRAFT",
          pinned_version: 1,
        },
      ];
      deepEqual(await s.runtime.templates.usedBy(ws, "lib/where"), expected);
      deepEqual(await s.runtime.templates.usedBy(ws, "lib/where", 1), expected);
      deepEqual(await s.runtime.templates.usedBy(ws, "q/user"), []);
      await refuses(
        s.runtime.templates.usedBy(ws, "lib/where", 7),
        "template.not_found",
        404,
      );
      await refuses(s.runtime.templates.usedBy(ws, "lib/nope"), "template.not_found", 404);

      // Another workspace never sees this one's template, nor who pins it.
      await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "elsewhere" });
      const other = (await s.runtime.workspaces.get("elsewhere"))!.id;
      await refuses(s.runtime.templates.usedBy(other, "lib/where"), "template.not_found", 404);
    });
  },
);
