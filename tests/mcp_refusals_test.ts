/**
 * Tool refusals (DECISIONS.md "MCP tool refusals"; spec 1 §4.7, §5.6 item 7, §5.7): each of the
 * pipeline, execution, calculator and docs tools refused for an under-privileged key — a scope
 * below the floor (`auth.scope.insufficient`), an issuer whose role is below it, or who left the
 * workspace (`auth.key_issuer_role_lost`) — as `isError` results carrying REST's code, audited as
 * `auth.scope.denied` and `mcp.tool.called` with the code; and the pinned workspace: a key never
 * reads, runs or cancels another workspace's content, a super admin's key included.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { audits } from "./support/refusals.ts";
import { connect, ERAS, type Json, keyHeaders, NODES } from "./support/mcp_client.ts";

const SCOPE = "auth.scope.insufficient";
const ROLE = "auth.key_issuer_role_lost";

for (const era of ERAS) {
  forEachStoreKind(
    `[${era}] every tool refuses a key below its floor, with REST's code`,
    async (store) => {
      const s = await startTestServer({ store });
      try {
        const f = await seedRoles(s.runtime);
        const rt = s.runtime;
        const pipeline = await rt.pipelines.create(
          { actor: f.users.author.principal, workspaceId: f.workspace.id },
          { name: "team/refusals", schema_version: 1, nodes: NODES },
        );
        const id = String(pipeline.id);
        const started = await rt.executions.execute({
          caller: { userId: f.users.viewer.id, isSuperAdmin: false },
          workspaceId: f.workspace.id,
          pipelineId: id,
          parameters: {},
          correlationId: crypto.randomUUID(),
          triggeredVia: "REST",
        });
        for await (const _ of started.frames) { /* to its end */ }
        await started.release();
        const executionId = started.executionId;

        const keys = {
          read: await userKey(rt, f.users.viewer, f.workspace.id, ["read"]),
          execute: await userKey(rt, f.users.viewer, f.workspace.id, ["execute"]),
          // An author-scoped key of a viewer: the scope holds, the issuer's role does not.
          viewerAuthor: await userKey(rt, f.users.viewer, f.workspace.id, ["author"]),
          gone: await userKey(rt, f.users.promoter, f.workspace.id, ["author"]),
        };
        await rt.workspaces.removeMember(
          f.users.super_admin.principal,
          f.workspace.name,
          f.users.promoter.id,
        );
        rt.directory.forgetUser(f.users.promoter.id);

        const body = { name: "team/refusals", nodes: NODES };
        const cases: [keyof typeof keys, string, Json, string][] = [
          ["gone", "pipelines_list", {}, ROLE],
          ["gone", "pipelines_get", { id }, ROLE],
          ["read", "pipelines_create", { ...body, name: "team/other" }, SCOPE],
          ["viewerAuthor", "pipelines_create", { ...body, name: "team/other" }, ROLE],
          [
            "execute",
            "pipelines_update",
            { id, if_match: String(pipeline.body_hash), ...body },
            SCOPE,
          ],
          ["viewerAuthor", "pipelines_update", {
            id,
            if_match: String(pipeline.body_hash),
            ...body,
          }, ROLE],
          ["read", "pipelines_execute", { id }, SCOPE],
          ["gone", "pipelines_execute", { id }, ROLE],
          ["execute", "pipelines_execute_node", { id, node: "tens" }, SCOPE],
          ["read", "pipelines_run_checks", { id, version: 1 }, SCOPE],
          ["gone", "executions_list", {}, ROLE],
          ["gone", "executions_get", { execution_id: executionId }, ROLE],
          ["gone", "executions_get_result", { execution_id: executionId }, ROLE],
          ["read", "executions_cancel", { execution_id: executionId }, SCOPE],
          ["gone", "calculators_list", {}, ROLE],
          ["gone", "calculators_get", { name: "date_range" }, ROLE],
          ["gone", "docs_list", {}, ROLE],
          ["gone", "docs_get", { id: "mcp" }, ROLE],
        ];
        const clients = new Map<string, Awaited<ReturnType<typeof connect>>>();
        try {
          for (const [key, tool, args, code] of cases) {
            let c = clients.get(key);
            if (!c) clients.set(key, c = await connect(s, era, keyHeaders(keys[key])));
            const error = await c.refusal(tool, args);
            equal(error.code, code, `${tool} with the ${key} key: ${JSON.stringify(error)}`);
            ok(error.message.length > 0);
            ok("required" in error.details, `${tool}: details name what was required`);
          }
          // The same keys pass what their floor allows, and refusals of the tools themselves keep
          // REST's codes (not found, validation).
          const viewer = clients.get("execute")!;
          equal((await viewer.call("pipelines_get", { id })).id, id);
          equal((await viewer.refusal("pipelines_get", { id: "nope" })).code, "pipeline.not_found");
          equal((await viewer.refusal("docs_get", { id: "nope" })).code, "docs.not_found");
          equal(
            (await viewer.refusal("calculators_get", { name: "nope" })).code,
            "pipeline.calculator.not_found",
          );
          equal(
            (await viewer.refusal("executions_get_result", { cursor: "garbage" })).code,
            "pipeline.execution.invalid_parameter_type",
          );
          // Cancel is the owner's: the viewer's own finished run is not running.
          equal(
            (await viewer.refusal("executions_cancel", { execution_id: executionId })).code,
            "pipeline.execution.not_running",
          );
        } finally {
          for (const c of clients.values()) await c.close();
        }

        const denied = await audits(rt.db, "auth.scope.denied");
        equal(denied.length, cases.length);
        ok(denied.every((r) => String(r.details.path).startsWith("/mcp#")));
        const called = (await audits(rt.db, "mcp.tool.called")).filter((r) =>
          r.details.outcome === SCOPE || r.details.outcome === ROLE
        );
        deepEqual(
          called.map((r) => `${r.details.tool}:${r.details.outcome}`).sort(),
          cases.map(([, tool, , code]) => `${tool}:${code}`).sort(),
        );
        equal((await audits(rt.db, "mcp.tool.write")).length, 0);
      } finally {
        await s.close();
      }
    },
  );
}

forEachStoreKind(
  "the pinned workspace: a key never reaches another workspace's content",
  async (store) => {
    const s = await startTestServer({ store });
    try {
      const rt = s.runtime;
      const acme = await seedRoles(rt, "acme");
      const other = await seedRoles(rt, "other");
      const theirs = await rt.pipelines.create(
        { actor: other.users.author.principal, workspaceId: other.workspace.id },
        { name: "team/secret", schema_version: 1, nodes: NODES },
      );
      const started = await rt.executions.execute({
        caller: { userId: other.users.author.id, isSuperAdmin: false },
        workspaceId: other.workspace.id,
        pipelineId: String(theirs.id),
        parameters: {},
        correlationId: crypto.randomUUID(),
        triggeredVia: "REST",
      });
      for await (const _ of started.frames) { /* to its end */ }
      await started.release();
      const ours = await rt.pipelines.create(
        { actor: acme.users.author.principal, workspaceId: acme.workspace.id },
        { name: "team/ours", schema_version: 1, nodes: NODES },
      );

      // The other workspace's author (a member there too would not matter: the key is pinned), and
      // a super admin, who reaches every workspace by session but not with a key pinned to acme.
      await rt.workspaces.addMember(acme.users.super_admin.principal, "acme", {
        email: other.users.author.email,
        author: true,
        promoter: false,
        admin: false,
      });
      rt.directory.forgetWorkspaces();
      for (const user of [other.users.author, acme.users.super_admin]) {
        const key = await userKey(rt, user, acme.workspace.id, ["author"]);
        for (const era of ERAS) {
          const c = await connect(s, era, keyHeaders(key));
          try {
            const list = await c.call("pipelines_list");
            deepEqual(list.items.map((p: Json) => p.id), [ours.id]);
            const id = String(theirs.id);
            for (
              const [tool, args] of [
                ["pipelines_get", { id }],
                ["pipelines_update", {
                  id,
                  if_match: String(theirs.body_hash),
                  name: "team/x",
                  nodes: NODES,
                }],
                ["pipelines_execute", { id }],
                ["pipelines_execute_node", { id, node: "tens" }],
                ["pipelines_run_checks", { id, version: 1 }],
              ] as const
            ) {
              equal((await c.refusal(tool, args)).code, "pipeline.not_found", tool);
            }
            const eid = started.executionId;
            for (
              const [tool, args] of [
                ["executions_get", { execution_id: eid }],
                ["executions_get_result", { execution_id: eid }],
                ["executions_cancel", { execution_id: eid }],
              ] as const
            ) {
              equal((await c.refusal(tool, args)).code, "result.execution_not_found", tool);
            }
            equal((await c.call("executions_list")).pagination.total, 0);
          } finally {
            await c.close();
          }
        }
      }
      // Nothing ran in the other workspace but the one run it started itself.
      equal((await rt.executions.repo.list({ workspaceId: other.workspace.id }, 0, 10)).total, 1);
    } finally {
      await s.close();
    }
  },
);
