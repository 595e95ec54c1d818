import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import type { Principal } from "../identity/mod.ts";
import { addUser, service, workspaceWithAdmin } from "./test_fixtures.ts";
import { audits } from "../../tests/support/refusals.ts";

const VIEWER = { author: false, promoter: false, admin: false };
const landingUser = (p: Principal) => ({
  userId: p.userId,
  email: p.email,
  provider: p.provider,
  isSuperAdmin: p.isSuperAdmin,
});

forEachStore(
  "landing() joins the demo as viewer once, audited first_login_demo_viewer",
  async (db) => {
    const svc = service(db);
    await svc.seedDemoWorkspace();
    const newcomer = await addUser(db, "new@x.example", { provider: "corp" });
    const first = await svc.landing(landingUser(newcomer), { invitationMaterialised: false });
    deepEqual([first?.name, first?.flags], ["demo", VIEWER]);
    const again = await svc.landing(landingUser(newcomer), { invitationMaterialised: false });
    equal(again?.name, "demo");
    const rows = await audits(db, "workspace.member_added");
    equal(rows.length, 1);
    deepEqual([rows[0].details.reason, rows[0].user_id], [
      "first_login_demo_viewer",
      newcomer.userId,
    ]);
  },
);

forEachStore(
  "landing() never demo-joins a super admin, after a materialised invitation, or with any membership",
  async (db) => {
    const { svc, root, admin } = await workspaceWithAdmin(db);
    await svc.seedDemoWorkspace();
    equal(await svc.landing(landingUser(root), { invitationMaterialised: false }), null);
    const invited = await addUser(db, "inv@x.example");
    equal(await svc.landing(landingUser(invited), { invitationMaterialised: true }), null);
    // A member of a workspace that was later deactivated is not moved into the demo.
    await svc.deactivate(root, "acme");
    equal(await svc.landing(landingUser(admin), { invitationMaterialised: false }), null);
    equal((await audits(db, "workspace.member_added")).filter((r) => r.details.reason).length, 0);
  },
);

forEachStore(
  "landing() prefers the last-used live membership, then the oldest; no demo when it is deactivated",
  async (db) => {
    const { svc, root, admin } = await workspaceWithAdmin(db);
    await svc.create(root, { name: "beta" });
    await svc.addMember(root, "beta", { email: admin.email });
    equal((await svc.landing(landingUser(admin), { invitationMaterialised: false }))?.name, "acme");
    await svc.rememberLastUsed(admin.userId, (await svc.get("beta"))!.id);
    equal((await svc.landing(landingUser(admin), { invitationMaterialised: false }))?.name, "beta");

    await svc.seedDemoWorkspace();
    await svc.deactivate(root, "demo");
    const loner = await addUser(db, "loner@x.example");
    equal(await svc.landing(landingUser(loner), { invitationMaterialised: false }), null);
  },
);

forEachStore(
  "landing() puts a super admin without memberships in the one active workspace, joining nothing",
  async (db) => {
    const { svc, root } = await workspaceWithAdmin(db);
    await svc.seedDemoWorkspace();
    await svc.deactivate(root, "acme");
    const only = await svc.landing(landingUser(root), { invitationMaterialised: false });
    deepEqual([only?.name, only?.implicit, only?.flags?.admin], ["demo", true, true]);
    equal((await audits(db, "workspace.member_added")).filter((r) => r.details.reason).length, 0);
    await svc.deactivate(root, "demo");
    equal(await svc.landing(landingUser(root), { invitationMaterialised: false }), null);
  },
);
