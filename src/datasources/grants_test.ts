import { deepEqual, equal, ok } from "node:assert/strict";
import { storeTestWith } from "../../tests/support/stores.ts";
import { WorkspaceService } from "../workspaces/mod.ts";
import { countBound } from "./repo.ts";
import { datasourceFixture, pgBody } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Each test starts from the datasource fixture on a fresh store. */
const datasourceTest = storeTestWith(datasourceFixture);

datasourceTest(
  "a global datasource is visible only where granted; a super admin sees it always",
  async (f, db) => {
    const acme = await f.ctx("acme", f.admin);
    const other = await f.ctx("other", f.otherAdmin);
    const made = await f.ds.create(f.root, null, pgBody("lakehouse", { global: true }));
    deepEqual([made.global, made.workspace], [true, null]);
    await refuses(f.ds.get(f.admin, acme, "lakehouse"), "datasource.not_found", 404);
    equal((await f.ds.list(f.admin, acme, { offset: 0, limit: 10 })).total, 0);
    equal((await f.ds.get(f.root, null, "lakehouse")).name, "lakehouse");
    equal(
      (await f.ds.list(f.root, await f.ctx("acme", f.root), { offset: 0, limit: 10 })).total,
      1,
    );

    const first = await f.ds.grant(f.root, "lakehouse", "acme");
    deepEqual({ ...first, granted_at: "" }, {
      datasource: "lakehouse",
      workspace: "acme",
      granted_at: "",
      already_granted: false,
    });
    const again = await f.ds.grant(f.root, "lakehouse", "acme");
    deepEqual([again.already_granted, again.granted_at], [true, first.granted_at]);
    equal((await f.ds.get(f.admin, acme, "lakehouse")).global, true);
    equal((await f.ds.list(f.admin, acme, { offset: 0, limit: 10 })).total, 1);
    await refuses(f.ds.get(f.otherAdmin, other, "lakehouse"), "datasource.not_found", 404);
    equal((await f.ds.list(f.otherAdmin, other, { offset: 0, limit: 10 })).total, 0);

    const granted = await audits(db, "datasource.granted");
    deepEqual(granted.map((r) => r.details.already_granted), [false, true]);
    equal(granted[0].details.workspace, "acme");
    equal(granted[0].workspace_id, acme.id);

    await f.ds.revoke(f.root, "lakehouse", "acme");
    await f.ds.revoke(f.root, "lakehouse", "acme");
    await refuses(f.ds.get(f.admin, acme, "lakehouse"), "datasource.not_found", 404);
    deepEqual((await audits(db, "datasource.revoked")).map((r) => r.details.was_granted), [
      true,
      false,
    ]);
  },
);

datasourceTest(
  "grants refuse bound datasources, unknown names and unknown workspaces",
  async (f, db) => {
    await f.ds.create(f.admin, await f.ctx("acme", f.admin), pgBody("mine"));
    await f.ds.create(f.root, null, pgBody("shared", { global: true }));
    await refuses(
      f.ds.grant(f.root, "mine", "other"),
      "datasource.validation.workspace_forbidden",
      400,
    );
    await refuses(f.ds.grant(f.root, "nope", "acme"), "datasource.not_found", 404);
    await refuses(f.ds.grant(f.root, "shared", "nowhere"), "workspace.not_found", 404);
    await refuses(f.ds.revoke(f.root, "shared", "nowhere"), "workspace.not_found", 404);
    equal((await audits(db, "datasource.granted")).length, 0);
  },
);

datasourceTest(
  "global flips: to global keeps the owner's access by a grant; back drops grants",
  async (f, db) => {
    const acme = await f.ctx("acme", f.admin);
    await f.ds.create(f.admin, acme, pgBody("wh"));
    const flipped = await f.ds.update(f.root, await f.ctx("acme", f.root), "wh", {
      ...pgBody("wh", { global: true }),
      credential: undefined,
    });
    deepEqual([flipped.global, flipped.workspace], [true, null]);
    equal((await f.ds.get(f.admin, acme, "wh")).global, true, "still visible to its old workspace");
    await refuses(
      f.ds.update(f.admin, acme, "wh", { ...pgBody("wh"), credential: undefined }),
      "auth.role_required",
      403,
    );
    await f.ds.grant(f.root, "wh", "other");
    const back = await f.ds.update(f.root, null, "wh", {
      ...pgBody("wh", { global: false, workspace: "other" }),
      credential: undefined,
    });
    deepEqual([back.global, back.workspace], [false, "other"]);
    await refuses(f.ds.get(f.admin, acme, "wh"), "datasource.not_found", 404);
    equal((await db.query("SELECT 1 FROM datasource_grants")).length, 0);
    deepEqual(
      (await audits(db, "datasource.updated")).map((r) => r.details.flip),
      ["to_global", "to_workspace"],
    );
  },
);

datasourceTest("workspace.in_use counts workspace-bound datasources", async (f, db) => {
  const acme = await f.ctx("acme", f.admin);
  await f.ds.create(f.admin, acme, pgBody("wh"));
  await f.ds.create(f.root, null, pgBody("g", { global: true }));
  await f.ds.grant(f.root, "g", "acme");
  const workspaces = new WorkspaceService({
    db,
    allowlistDomains: [],
    contentCounters: { datasources: countBound },
  });
  await refuses(workspaces.remove(f.admin, "acme"), "workspace.in_use", 409, {
    counts: { datasources: 1 },
  });
  await f.ds.remove(f.admin, acme, "wh");
  await workspaces.remove(f.admin, "acme");
  ok(!(await workspaces.get("acme")));
});
