import { deepEqual, equal, rejects } from "node:assert/strict";
import { queryAudit } from "../audit/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import { authorizeAudited, refuseWorkspaceHeader } from "./access_audit.ts";
import { key as apiKey, session as principal, ws } from "./principal_fixtures.ts";

const viewer = ws({ author: false, promoter: false, admin: false });
const request = { path: "/api/v1/pipelines", method: "POST" };

async function rows(db: Parameters<typeof queryAudit>[0]) {
  return (await queryAudit(db, { offset: 0, limit: 10 })).items;
}

forEachStore(
  "a refusal on the role axis is audited as auth.scope.denied, then thrown",
  async (db) => {
    const who = principal();
    await rejects(
      authorizeAudited(
        db,
        { operation: "content.write", principal: who, workspace: viewer, membershipCount: 1 },
        request,
      ),
      { code: "auth.role_required" },
    );
    const [row] = await rows(db);
    equal(row.event, "auth.scope.denied");
    equal(row.user_id, who.userId);
    equal(row.workspace_id, viewer.id);
    equal(row.details.operation, "content.write");
    equal(row.details.code, "auth.role_required");
    equal(row.details.path, request.path);
  },
);

forEachStore("a refusal that is not a denial (no workspace) writes no row", async (db) => {
  await rejects(
    authorizeAudited(
      db,
      { operation: "content.read", principal: principal(), workspace: null, membershipCount: 0 },
      request,
    ),
    { code: "workspace.membership_required" },
  );
  deepEqual(await rows(db), []);
});

forEachStore("a super admin in an implicit workspace is audited even on a read", async (db) => {
  const admin = principal({ isSuperAdmin: true });
  const implicit = {
    ...viewer,
    flags: { author: true, promoter: true, admin: true },
    implicit: true,
  };
  await authorizeAudited(
    db,
    { operation: "content.read", principal: admin, workspace: implicit, membershipCount: 0 },
    { path: "/api/v1/pipelines", method: "GET" },
  );
  const [row] = await rows(db);
  equal(row.event, "auth.super_admin_acting");
  deepEqual(row.details, {
    operation: "content.read",
    workspace: "acme",
    path: "/api/v1/pipelines",
    method: "GET",
    acting_via: "super_admin",
  });
});

forEachStore("a workspace header on a key request is audited, then refused", async (db) => {
  const key = apiKey(["read"]);
  await rejects(refuseWorkspaceHeader(db, key, "other".repeat(40)), {
    code: "workspace.header_forbidden",
  });
  const [row] = await rows(db);
  equal(row.event, "auth.workspace.header_rejected");
  deepEqual(row.details, { key_id: "svck_x", header: "other".repeat(40).slice(0, 100) });
});
