/**
 * The templates_* tools over real HTTP with the official SDK client, on both stores: the authoring
 * walk (create, read, update against if_match, render, what pins it, purge the draft), each
 * tool's refusal for a key short of its floor, the codes REST gives, and the pinned workspace.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { floorsHold, refuses, withUsualClients } from "./support/mcp_tools_fixtures.ts";
import { forEachStoreKind } from "./support/stores.ts";

const BODY = "SELECT * FROM orders {% if params.region %}WHERE region = :region{% endif %}";

forEachStoreKind(
  "template tools: the authoring walk, floors and the pinned workspace",
  (store) =>
    withUsualClients(store, async (c, s, f) => {
      const made = await c.author.call("templates_create", {
        id: "sales/orders",
        dialect: "SQLITE",
        display_name: "Orders",
        body: "SELECT * FROM orders",
      });
      deepEqual([made.id, made.version, made.status, made.current_version, made.draft.version], [
        "sales/orders",
        1,
        "DRAFT",
        null,
        1,
      ]);
      await refuses(c.author, "templates_create", {
        id: "sales/orders",
        dialect: "SQLITE",
        display_name: "Again",
        body: "SELECT 1",
      }, "template.validation.duplicate_name");
      await refuses(c.author, "templates_create", {
        id: "x/bad",
        dialect: "ORACLE",
        display_name: "x",
        body: "SELECT 1",
      }, "template.validation.dialect_invalid");
      // Arguments the schema refuses carry the REST validation code, naming the field.
      await refuses(
        c.author,
        "templates_create",
        { id: "x", display_name: "x" },
        "pipeline.execution.invalid_parameter_type",
        { field: "body" },
      );

      // Reads: a read-scoped key is enough.
      const listed = await c.read.call("templates_list", { limit: 10 });
      deepEqual(listed.items.map((t: { id: string }) => t.id), ["sales/orders"]);
      deepEqual(listed.pagination, { offset: 0, limit: 10, total: 1, has_more: false });
      equal((await c.read.call("templates_list", { dialect: "POSTGRES" })).pagination.total, 0);
      const got = await c.read.call("templates_get", { id: "sales/orders" });
      equal(got.body_hash, made.body_hash);
      await refuses(c.read, "templates_get", { id: "sales/none" }, "template.not_found");

      // Update against if_match; a stale hash is the REST conflict.
      const saved = await c.author.call("templates_update", {
        id: "sales/orders",
        display_name: "Orders",
        body: BODY,
        if_match: made.body_hash,
      });
      deepEqual([saved.version, saved.status, saved.body], [1, "DRAFT", BODY]);
      await refuses(c.author, "templates_update", {
        id: "sales/orders",
        display_name: "Orders",
        body: "SELECT 2",
        if_match: made.body_hash,
      }, "template.version.conflict");
      await refuses(c.author, "templates_update", {
        id: "sales/orders",
        type: "html",
        display_name: "Orders",
        body: BODY,
        if_match: saved.body_hash,
      }, "template.validation.type_immutable");

      // Render: values never enter the SQL text.
      const rendered = await c.author.call("templates_render", {
        id: "sales/orders",
        context: { region: "north'; DROP TABLE orders; --" },
      });
      deepEqual(rendered, {
        sql: "SELECT * FROM orders WHERE region = :region",
        placeholders: ["region"],
        imports: [],
      });

      // What pins it: a released version imported by another template and used by a pipeline.
      const ws = f.workspace.id;
      const promoter = { actor: f.users.promoter.principal, workspaceId: ws };
      await s.runtime.templates.release(promoter, "sales/orders", saved.body_hash);
      const user = await c.author.call("templates_create", {
        id: "sales/by_region",
        dialect: "SQLITE",
        display_name: "By region",
        body: "SELECT 1 {% render 'o' %}",
        imports: [{ alias: "o", id: "sales/orders", version: 1 }],
      });
      const pipeline = await s.runtime.pipelines.create(
        { actor: f.users.author.principal, workspaceId: ws },
        {
          name: "uses/orders",
          schema_version: 1,
          nodes: [{
            id: "a",
            type: "DQL",
            source: "tempdb",
            template: { id: "sales/orders", version: 1 },
          }],
        },
      );
      const pinners = await c.read.call("templates_used_by", { id: "sales/orders" });
      deepEqual(pinners.used_by.map((p: { kind: string; id: string }) => [p.kind, p.id]), [
        ["pipeline", pipeline.id],
        ["template", "sales/by_region"],
      ]);
      deepEqual(
        (await c.read.call("templates_used_by", { id: "sales/by_region" })).used_by,
        [],
      );
      await refuses(
        c.read,
        "templates_used_by",
        { id: "sales/orders", version: 9 },
        "template.not_found",
      );

      // Purge the draft: refused while pinned… (the by_region draft pins nothing of its own).
      const next = await c.author.call("templates_update", {
        id: "sales/orders",
        display_name: "Orders v2",
        body: BODY + " LIMIT 5",
        if_match: (await c.read.call("templates_get", { id: "sales/orders" })).body_hash,
      });
      deepEqual([next.version, next.status], [2, "DRAFT"]);
      await refuses(c.author, "templates_purge_draft", {
        id: "sales/orders",
        if_match: "0".repeat(64),
      }, "template.version.conflict");
      deepEqual(
        await c.author.call("templates_purge_draft", {
          id: "sales/orders",
          if_match: next.body_hash,
        }),
        { id: "sales/orders", purged: true },
      );
      const after = await c.read.call("templates_get", { id: "sales/orders" });
      deepEqual([after.version, after.status, after.draft], [1, "RELEASED", null]);
      await refuses(c.author, "templates_purge_draft", {
        id: "sales/orders",
        if_match: next.body_hash,
      }, "template.version.not_draft");
      ok(user.id);

      // Each tool refuses a key short of its floor.
      await floorsHold(c, [
        ["templates_list", "read", {}],
        ["templates_get", "read", { id: "sales/orders" }],
        ["templates_used_by", "read", { id: "sales/orders" }],
        ["templates_create", "write", {
          id: "never/made",
          dialect: "SQLITE",
          display_name: "x",
          body: "SELECT 1",
        }],
        ["templates_update", "write", {
          id: "sales/orders",
          display_name: "x",
          body: "SELECT 1",
          if_match: after.body_hash,
        }],
        ["templates_render", "write", { id: "sales/orders" }],
        ["templates_purge_draft", "write", { id: "sales/by_region", if_match: user.body_hash }],
      ]);
      equal((await c.read.call("templates_get", { id: "sales/by_region" })).status, "DRAFT");
      await refuses(c.read, "templates_get", { id: "never/made" }, "template.not_found");

      // The pinned workspace: another workspace's key never sees acme's templates.
      deepEqual((await c.other.call("templates_list", {})).items, []);
      for (
        const [tool, args] of [
          ["templates_get", { id: "sales/orders" }],
          ["templates_used_by", { id: "sales/orders" }],
          ["templates_render", { id: "sales/orders" }],
          ["templates_update", {
            id: "sales/orders",
            display_name: "x",
            body: "SELECT 1",
            if_match: after.body_hash,
          }],
          ["templates_purge_draft", { id: "sales/by_region", if_match: user.body_hash }],
        ] as const
      ) {
        await refuses(c.other, tool, args, "template.not_found");
      }
      // The same name is free in the other workspace: it is another template.
      const theirs = await c.other.call("templates_create", {
        id: "sales/orders",
        dialect: "POSTGRES",
        display_name: "Theirs",
        body: "SELECT 2",
      });
      equal(theirs.dialect, "POSTGRES");
      equal((await c.read.call("templates_get", { id: "sales/orders" })).dialect, "SQLITE");
    }),
);
