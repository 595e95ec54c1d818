import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { ensureSystemActor, SYSTEM_EMAIL } from "../identity/mod.ts";
import { materialiseInvitations } from "./members.ts";
import { addUser, sameItems, service, setJoinedAt, workspaceWithAdmin } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

const BAD_INPUT = "pipeline.execution.invalid_parameter_type";

forEachStore("addMember() adds an existing user (200) and audits the flags", async (db) => {
  const { svc, root } = await workspaceWithAdmin(db);
  const bob = await addUser(db, "bob@x.example");
  const result = await svc.addMember(root, "acme", { email: "  Bob@X.Example ", admin: true });
  equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  deepEqual({ ...result.member, joined_at: "" }, {
    user_id: bob.userId,
    email: "bob@x.example",
    display_name: "User bob@x.example",
    author: true, // implied by admin
    promoter: false,
    admin: true,
    joined_at: "",
  });
  const rows = (await audits(db, "workspace.member_added")).filter((r) =>
    r.details.email === "bob@x.example"
  );
  equal(rows.length, 1);
  equal(rows[0].user_id, root.userId);
  equal(rows[0].workspace_id, (await svc.get("acme"))!.id);
  deepEqual(rows[0].details, {
    workspace: "acme",
    user_id: bob.userId,
    email: "bob@x.example",
    flags: { author: true, promoter: false, admin: true },
  });

  // An existing member comes back unchanged: flags change only through setFlags().
  const again = await svc.addMember(root, "acme", { email: "bob@x.example", promoter: true });
  deepEqual(again, result);
  equal((await audits(db, "workspace.member_added")).length, 2); // the fixture's admin and bob
});

forEachStore(
  "addMember() refuses a missing or malformed email and non-boolean flags",
  async (db) => {
    const { svc, root } = await workspaceWithAdmin(db);
    const emails = [
      undefined,
      null,
      42,
      {},
      "",
      "   ",
      "no-at-sign",
      "@x.example",
      "a@",
      `${"a".repeat(250)}@x.example`,
    ];
    for (const email of emails) {
      await refuses(svc.addMember(root, "acme", { email }), BAD_INPUT, 400, { field: "email" });
    }
    for (const body of [null, "bob@x.example", ["bob@x.example"]]) {
      await refuses(svc.addMember(root, "acme", body), BAD_INPUT, 400, { field: "email" });
    }
    for (const field of ["author", "promoter", "admin"]) {
      for (const value of ["true", 1, null]) {
        await refuses(
          svc.addMember(root, "acme", { email: "bob@x.example", [field]: value }),
          BAD_INPUT,
          400,
          { field },
        );
      }
    }
    deepEqual((await svc.members("acme")).invitations, []);
  },
);

forEachStore(
  "addMember() invites an unknown email (202) and replaces the invitation",
  async (db) => {
    const { svc, root, admin } = await workspaceWithAdmin(db);
    const first = await svc.addMember(root, "acme", { email: "New@X.example", promoter: true });
    deepEqual(first, {
      status: 202,
      invitation: {
        invited: true,
        email: "new@x.example",
        author: false,
        promoter: true,
        admin: false,
      },
    });
    const second = await svc.addMember(admin, "acme", { email: "new@x.example", admin: true });
    deepEqual(second, {
      status: 202,
      invitation: {
        invited: true,
        email: "new@x.example",
        author: true,
        promoter: false,
        admin: true,
      },
    });
    const { members, invitations } = await svc.members("acme");
    equal(members.length, 1);
    equal(invitations.length, 1);
    deepEqual({ ...invitations[0], invited_at: "" }, {
      email: "new@x.example",
      author: true,
      promoter: false,
      admin: true,
      invited_by: admin.userId,
      invited_at: "",
    });
    const rows = await audits(db, "workspace.member_invited");
    sameItems(rows.map((r) => [r.user_id, r.details]), [
      [root.userId, {
        workspace: "acme",
        email: "new@x.example",
        flags: { author: false, promoter: true, admin: false },
      }],
      [admin.userId, {
        workspace: "acme",
        email: "new@x.example",
        flags: { author: true, promoter: false, admin: true },
      }],
    ]);
  },
);

forEachStore("addMember() applies the login allowlist with a 400", async (db) => {
  const root = await addUser(db, "root@x.example", { isAdmin: true });
  const svc = service(db, ["X.example", "corp.example"]);
  await svc.create(root, { name: "w" });
  await refuses(
    svc.addMember(root, "w", { email: "eve@evil.example" }),
    "auth.login.domain_not_allowed",
    400,
    { domain: "evil.example" },
  );
  await refuses(
    svc.addMember(root, "w", { email: "eve@sub.corp.example" }),
    "auth.login.domain_not_allowed",
    400,
  );
  equal((await svc.addMember(root, "w", { email: "ann@CORP.example" })).status, 202);
  equal((await svc.addMember(root, "w", { email: "root@x.example" })).status, 200);
});

forEachStore("addMember() answers workspace.inactive in a deactivated workspace", async (db) => {
  const { svc, root } = await workspaceWithAdmin(db);
  await addUser(db, "bob@x.example");
  await svc.deactivate(root, "acme");
  await refuses(
    svc.addMember(root, "acme", { email: "bob@x.example" }),
    "workspace.inactive",
    404,
    {
      workspace: "acme",
    },
  );
  await refuses(svc.addMember(root, "acme", { email: "new@x.example" }), "workspace.inactive", 404);
  await refuses(
    svc.addMember(root, "nope", { email: "new@x.example" }),
    "workspace.not_found",
    404,
  );
});

forEachStore("addMember() treats the system actor's email as reserved", async (db) => {
  const { svc, root } = await workspaceWithAdmin(db);
  await ensureSystemActor(db);
  await refuses(svc.addMember(root, "acme", { email: SYSTEM_EMAIL }), BAD_INPUT, 400, {
    field: "email",
    reason: "reserved",
  });
  equal((await svc.members("acme")).members.length, 1);
  deepEqual((await svc.members("acme")).invitations, []);
});

forEachStore("addMember() of a user drops a stale invitation for the same address", async (db) => {
  const { svc, root } = await workspaceWithAdmin(db);
  await svc.addMember(root, "acme", { email: "late@x.example", author: true });
  await addUser(db, "late@x.example");
  equal((await svc.addMember(root, "acme", { email: "late@x.example" })).status, 200);
  deepEqual((await svc.members("acme")).invitations, []);
});

forEachStore("members() lists members oldest first and invitations apart", async (db) => {
  const { svc, root, admin } = await workspaceWithAdmin(db);
  const amy = await addUser(db, "amy@x.example");
  await svc.addMember(root, "acme", { email: amy.email });
  await svc.addMember(root, "acme", { email: "pending@x.example" });
  await setJoinedAt(db, "acme", amy.userId, "2020-01-01T00:00:00.000Z");
  const view = await svc.members("acme");
  deepEqual(view.members.map((m) => m.email), [amy.email, admin.email]);
  equal(view.members[0].joined_at, "2020-01-01T00:00:00.000Z");
  deepEqual(Object.keys(view.members[0]).sort(), [
    "admin",
    "author",
    "display_name",
    "email",
    "joined_at",
    "promoter",
    "user_id",
  ]);
  deepEqual(view.invitations.map((i) => i.email), ["pending@x.example"]);
  await svc.deactivate(root, "acme");
  equal((await svc.members("acme")).members.length, 2);
  await refuses(svc.members("nope"), "workspace.not_found", 404);
});

forEachStore("setFlags() replaces all three flags wholesale and audits from and to", async (db) => {
  const { svc, root, admin } = await workspaceWithAdmin(db);
  const bob = await addUser(db, "bob@x.example");
  await svc.addMember(root, "acme", { email: bob.email, author: true, promoter: true });
  const row = await svc.setFlags(admin, "acme", bob.userId, { admin: true });
  deepEqual([row.author, row.promoter, row.admin], [true, false, true]);
  const down = await svc.setFlags(admin, "acme", bob.userId.toUpperCase(), {});
  deepEqual([down.author, down.promoter, down.admin], [false, false, false]);
  await svc.setFlags(admin, "acme", bob.userId, {}); // unchanged: no audit row
  const id = (await svc.get("acme"))!.id;
  deepEqual(await svc.flagsFor(bob.userId, id), { author: false, promoter: false, admin: false });
  const rows = await audits(db, "workspace.member_flags_changed");
  sameItems(rows.map((r) => [r.user_id, r.workspace_id, r.details]), [
    [admin.userId, id, {
      workspace: "acme",
      user_id: bob.userId,
      email: bob.email,
      from: { author: true, promoter: true, admin: false },
      to: { author: true, promoter: false, admin: true },
    }],
    [admin.userId, id, {
      workspace: "acme",
      user_id: bob.userId,
      email: bob.email,
      from: { author: true, promoter: false, admin: true },
      to: { author: false, promoter: false, admin: false },
    }],
  ]);
  await refuses(svc.setFlags(admin, "acme", bob.userId, { author: "yes" }), BAD_INPUT, 400, {
    field: "author",
  });
});

forEachStore(
  "setFlags() refuses non-members, junk ids and the last admin's demotion",
  async (db) => {
    const { svc, root, admin } = await workspaceWithAdmin(db);
    const stranger = await addUser(db, "stranger@x.example");
    await refuses(svc.setFlags(root, "acme", stranger.userId, {}), "workspace.not_found", 404);
    await refuses(svc.setFlags(root, "acme", "not-a-uuid", {}), "workspace.not_found", 404);
    await refuses(
      svc.setFlags(root, "acme", admin.userId, { author: true }),
      "workspace.last_admin",
      409,
      {
        workspace: "acme",
      },
    );
    // The last admin may keep admin while other flags change.
    equal(
      (await svc.setFlags(root, "acme", admin.userId, { admin: true, promoter: true })).promoter,
      true,
    );
    const second = await addUser(db, "second@x.example");
    await svc.addMember(root, "acme", { email: second.email, admin: true });
    equal((await svc.setFlags(root, "acme", admin.userId, {})).admin, false);
    await refuses(svc.setFlags(root, "acme", second.userId, {}), "workspace.last_admin", 409);
    await svc.deactivate(root, "acme");
    await refuses(
      svc.setFlags(root, "acme", second.userId, { admin: true }),
      "workspace.inactive",
      404,
    );
  },
);

forEachStore("removeMember() removes, audits, and never removes the last admin", async (db) => {
  const { svc, root, admin } = await workspaceWithAdmin(db);
  const bob = await addUser(db, "bob@x.example");
  await svc.addMember(root, "acme", { email: bob.email, promoter: true });
  await svc.removeMember(admin, "acme", bob.userId);
  deepEqual((await svc.members("acme")).members.map((m) => m.email), [admin.email]);
  const [row] = await audits(db, "workspace.member_removed");
  equal(row.user_id, admin.userId);
  deepEqual(row.details, {
    workspace: "acme",
    user_id: bob.userId,
    email: bob.email,
    flags: { author: false, promoter: true, admin: false },
  });
  await refuses(svc.removeMember(root, "acme", bob.userId), "workspace.not_found", 404);
  await refuses(svc.removeMember(root, "acme", "junk"), "workspace.not_found", 404);
  await refuses(svc.removeMember(root, "acme", admin.userId), "workspace.last_admin", 409);
  await svc.addMember(root, "acme", { email: bob.email, admin: true });
  await svc.removeMember(root, "acme", admin.userId);
  equal((await audits(db, "workspace.member_removed")).length, 2);
  await svc.deactivate(root, "acme");
  await refuses(svc.removeMember(root, "acme", bob.userId), "workspace.inactive", 404);
});

forEachStore(
  "revokeInvitation() deletes one pending invitation, even while deactivated",
  async (db) => {
    const { svc, root } = await workspaceWithAdmin(db);
    await svc.create(root, { name: "other" });
    await svc.addMember(root, "acme", { email: "inv@x.example" });
    await svc.addMember(root, "other", { email: "elsewhere@x.example" });
    await svc.revokeInvitation(root, "acme", "INV@x.example");
    deepEqual((await svc.members("acme")).invitations, []);
    const [row] = await audits(db, "workspace.invitation_revoked");
    equal(row.user_id, root.userId);
    deepEqual(row.details, { workspace: "acme", email: "inv@x.example" });
    await refuses(
      svc.revokeInvitation(root, "acme", "inv@x.example"),
      "workspace.invitation.not_found",
      404,
      {
        email: "inv@x.example",
      },
    );
    await refuses(
      svc.revokeInvitation(root, "acme", "never@x.example"),
      "workspace.invitation.not_found",
      404,
    );
    await refuses(
      svc.revokeInvitation(root, "acme", "elsewhere@x.example"),
      "workspace.invitation.not_found",
      404,
    );
    await refuses(svc.revokeInvitation(root, "acme", ""), "workspace.invitation.not_found", 404);

    await svc.deactivate(root, "other");
    await svc.revokeInvitation(root, "other", "elsewhere@x.example");
    equal((await audits(db, "workspace.invitation_revoked")).length, 2);
    await refuses(svc.revokeInvitation(root, "nope", "a@x.example"), "workspace.not_found", 404);
  },
);

forEachStore(
  "the last-admin guard holds under concurrent demotions and removals",
  async (db, store) => {
    // PostgreSQL: separate pools, so the two transactions really overlap and only the row lock on
    // the workspace keeps the admin count honest. SQLite: one process, one serialising connection.
    const [db1, db2] = store.kind === "postgres"
      ? [await store.open(), await store.open()]
      : [db, db];
    const { svc: seedSvc, root } = await workspaceWithAdmin(db);
    const svc1 = service(db1);
    const svc2 = service(db2);
    for (let round = 0; round < 5; round++) {
      const a = await addUser(db, `a${round}@x.example`);
      const b = await addUser(db, `b${round}@x.example`);
      const name = `race${round}`;
      await seedSvc.create(root, { name });
      await seedSvc.addMember(root, name, { email: a.email, admin: true });
      await seedSvc.addMember(root, name, { email: b.email, admin: true });
      const results = await Promise.allSettled([
        svc1.setFlags(root, name, a.userId, { author: true }),
        round % 2 === 0
          ? svc2.setFlags(root, name, b.userId, {})
          : svc2.removeMember(root, name, b.userId),
      ]);
      const failed = results.filter((r) => r.status === "rejected");
      equal(failed.length, 1, `round ${round}: exactly one change must win`);
      equal((failed[0] as PromiseRejectedResult).reason.code, "workspace.last_admin");
      const admins = (await seedSvc.members(name)).members.filter((m) => m.admin);
      equal(admins.length, 1, `round ${round}: one admin remains`);
    }
  },
);

forEachStore("materialiseInvitations() turns live invitations into memberships", async (db) => {
  const { svc, root } = await workspaceWithAdmin(db);
  await svc.create(root, { name: "asleep" });
  await svc.addMember(root, "acme", { email: "Zed@x.example", admin: true });
  await svc.addMember(root, "asleep", { email: "zed@x.example" });
  await svc.deactivate(root, "asleep");
  const invitedAt = (await svc.members("acme")).invitations[0].invited_at;

  const zed = await addUser(db, "zed@x.example");
  const joined = await db.transaction((tx) =>
    materialiseInvitations(tx, { userId: zed.userId, email: "ZED@x.example", provider: "local" })
  );
  deepEqual(joined, ["acme"]);
  const member = (await svc.members("acme")).members.find((m) => m.user_id === zed.userId)!;
  deepEqual([member.author, member.promoter, member.admin], [true, false, true]);
  equal(member.joined_at, invitedAt);
  deepEqual((await svc.members("acme")).invitations, []);
  equal((await svc.members("asleep")).invitations.length, 1);
  const [row] = await audits(db, "workspace.invitation_materialised");
  equal(row.user_id, zed.userId);
  deepEqual(row.details, {
    workspace: "acme",
    email: "zed@x.example",
    flags: { author: true, promoter: false, admin: true },
    inviter: root.userId,
  });
  ok(row.workspace_id);
});
