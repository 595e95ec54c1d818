import { deepEqual, throws } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { authorize } from "./authorize.ts";
import type { Operation } from "./operations.ts";
import { key, session, ws } from "./principal_fixtures.ts";
import type { Principal, WorkspaceContext } from "./types.ts";

const viewer = { author: false, promoter: false, admin: false };
const author = { author: true, promoter: false, admin: false };
const promoter = { author: false, promoter: true, admin: false };
const admin = { author: true, promoter: false, admin: true };

function outcome(
  operation: Operation,
  principal: Principal,
  workspace: WorkspaceContext | null,
  count = 1,
) {
  try {
    authorize({ operation, principal, workspace, membershipCount: count });
    return "allowed";
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
}

Deno.test("role axis: each flag satisfies exactly its rows", () => {
  deepEqual(
    [viewer, author, promoter, admin].map((f) => [
      outcome("content.read", session(), ws(f)),
      outcome("content.write", session(), ws(f)),
      outcome("versions.release", session(), ws(f)),
      outcome("versions.switch", session(), ws(f)),
      outcome("members.manage", session(), ws(f)),
      outcome("workspaces.create", session(), ws(f)),
    ]),
    [
      [
        "allowed",
        "auth.role_required",
        "auth.role_required",
        "auth.role_required",
        "auth.role_required",
        "auth.role_required",
      ],
      [
        "allowed",
        "allowed",
        "auth.role_required",
        "allowed",
        "auth.role_required",
        "auth.role_required",
      ],
      [
        "allowed",
        "auth.role_required",
        "allowed",
        "allowed",
        "auth.role_required",
        "auth.role_required",
      ],
      ["allowed", "allowed", "auth.role_required", "allowed", "allowed", "auth.role_required"],
    ],
  );
});

Deno.test("auth.role_required names the required role and the held ones", () => {
  try {
    authorize({
      operation: "content.write",
      principal: session(),
      workspace: ws(viewer),
      membershipCount: 1,
    });
  } catch (e) {
    deepEqual((e as AppError).details, { required: "author", held: ["view", "execute"] });
  }
});

Deno.test("scope axis for keys: read < execute < author; admin needs author and a super admin owner", () => {
  deepEqual(
    [["read"], ["execute"], ["author"]].map((s) => [
      outcome("content.read", key(s), ws(admin)),
      outcome("pipelines.execute", key(s), ws(admin)),
      outcome("content.write", key(s), ws(admin)),
      outcome("users.admin", key(s), null),
    ]),
    [
      ["allowed", "auth.scope.insufficient", "auth.scope.insufficient", "auth.scope.insufficient"],
      ["allowed", "allowed", "auth.scope.insufficient", "auth.scope.insufficient"],
      ["allowed", "allowed", "allowed", "auth.scope.insufficient"],
    ],
  );
  deepEqual(outcome("users.admin", key(["author"], { isSuperAdmin: true }), null), "allowed");
});

Deno.test("a key whose issuer lost the capability answers auth.key_issuer_role_lost", () => {
  deepEqual(outcome("content.write", key(["author"]), ws(viewer)), "auth.key_issuer_role_lost");
  deepEqual(outcome("content.read", key(["read"]), ws(null)), "auth.key_issuer_role_lost");
});

Deno.test("session-only operations refuse keys whatever their scope", () => {
  deepEqual(outcome("password.change_own", key(["author"]), ws(admin)), "auth.session.required");
  deepEqual(outcome("password.change_own", session(), null), "allowed");
});

Deno.test("workspace context: zero memberships, super admin instance verbs", () => {
  deepEqual(outcome("content.read", session(), null, 0), "workspace.membership_required");
  deepEqual(outcome("me.read", session(), null, 0), "allowed");
  deepEqual(outcome("workspaces.create", session({ isSuperAdmin: true }), null, 0), "allowed");
  deepEqual(outcome("users.admin", session({ isSuperAdmin: true }), null, 0), "allowed");
  deepEqual(outcome("users.admin", session(), null, 0), "auth.role_required");
  deepEqual(outcome("content.write", session({ isSuperAdmin: true }), ws(null, true)), "allowed");
  deepEqual(
    outcome("versions.release", session({ isSuperAdmin: true }), ws(null, true)),
    "allowed",
  );
});

Deno.test("every operation row is decided, none throws unexpectedly", () => {
  throws(
    () =>
      authorize({
        operation: "datasources.grant",
        principal: session(),
        workspace: ws(admin),
        membershipCount: 1,
      }),
    AppError,
  );
});
