import { deepEqual, equal } from "node:assert/strict";
import { forEachStore, storeTestWith } from "../../tests/support/stores.ts";
import { addUser, serviceWithRoot, setJoinedAt, who, workspaceWithAdmin } from "./test_fixtures.ts";

/** Tests that start from the workspace service and a super admin. */
const rootTest = storeTestWith(serviceWithRoot);

const ALL = { author: true, promoter: true, admin: true };
const NONE = { author: false, promoter: false, admin: false };

forEachStore("resolveForUser() answers members only, and only in active workspaces", async (db) => {
  const { svc, root, admin } = await workspaceWithAdmin(db);
  const id = (await svc.get("acme"))!.id;
  const viewer = await addUser(db, "viewer@x.example");
  const stranger = await addUser(db, "stranger@x.example");
  await svc.addMember(root, "acme", { email: viewer.email });

  deepEqual(await svc.resolveForUser(who(admin), "acme"), {
    id,
    name: "acme",
    flags: { author: true, promoter: false, admin: true },
    implicit: false,
  });
  deepEqual((await svc.resolveForUser(who(viewer), "acme"))?.flags, NONE);
  equal(await svc.resolveForUser(who(stranger), "acme"), null);
  equal(await svc.resolveForUser(who(admin), "nope"), null);
  equal(await svc.resolveForUser(who(admin), "Not A Name"), null);
  equal(await svc.resolveForUser({ userId: "junk", isSuperAdmin: false }, "acme"), null);

  // A super admin: every flag everywhere, implicit unless a membership row exists.
  deepEqual(await svc.resolveForUser(who(root), "acme"), {
    id,
    name: "acme",
    flags: ALL,
    implicit: true,
  });
  await svc.addMember(root, "acme", { email: root.email });
  deepEqual(await svc.resolveForUser(who(root), "acme"), {
    id,
    name: "acme",
    flags: ALL,
    implicit: false,
  });

  await svc.deactivate(root, "acme");
  equal(await svc.resolveForUser(who(admin), "acme"), null);
  equal(await svc.resolveForUser(who(root), "acme"), null);
  await svc.reactivate(root, "acme");
  equal((await svc.resolveForUser(who(admin), "acme"))?.id, id);
});

forEachStore(
  "resolveById() tells a key's pinned workspace state and the issuer's flags",
  async (db) => {
    const { svc, root, admin } = await workspaceWithAdmin(db);
    const id = (await svc.get("acme"))!.id;
    const stranger = await addUser(db, "stranger@x.example");

    deepEqual(await svc.resolveById(who(admin), id), {
      state: "active",
      context: {
        id,
        name: "acme",
        flags: { author: true, promoter: false, admin: true },
        implicit: false,
      },
    });
    deepEqual(await svc.resolveById(who(stranger), id), {
      state: "active",
      context: { id, name: "acme", flags: null, implicit: false },
    });
    deepEqual(await svc.resolveById(who(root), id), {
      state: "active",
      context: { id, name: "acme", flags: ALL, implicit: true },
    });
    deepEqual(await svc.resolveById(who(admin), crypto.randomUUID()), {
      state: "missing",
      context: null,
    });
    deepEqual(await svc.resolveById(who(admin), "junk"), { state: "missing", context: null });

    await svc.deactivate(root, "acme");
    const off = await svc.resolveById(who(admin), id);
    equal(off.state, "deactivated");
    equal(off.context?.flags?.admin, true);
    await svc.reactivate(root, "acme");
    equal((await svc.resolveById(who(admin), id)).state, "active");
  },
);

rootTest(
  "defaultForUser() prefers the last-used live membership, else the oldest",
  async ({ svc, root }, db) => {
    const u = await addUser(db, "u@x.example");
    equal(await svc.defaultForUser(who(u)), null);
    equal(await svc.defaultForUser(who(root)), null); // a super admin without memberships too
    for (
      const [name, at] of [["one", "2020-01-01"], ["two", "2021-01-01"], ["three", "2022-01-01"]]
    ) {
      await svc.create(root, { name });
      await svc.addMember(root, name, { email: u.email, author: name === "two" });
      await setJoinedAt(db, name, u.userId, `${at}T00:00:00.000Z`);
    }
    equal((await svc.defaultForUser(who(u)))?.name, "one");

    const two = (await svc.get("two"))!.id;
    await svc.rememberLastUsed(u.userId, two);
    deepEqual(await svc.defaultForUser(who(u)), {
      id: two,
      name: "two",
      flags: { author: true, promoter: false, admin: false },
      implicit: false,
    });
    await svc.deactivate(root, "two");
    equal((await svc.defaultForUser(who(u)))?.name, "one");
    await svc.reactivate(root, "two");
    equal((await svc.defaultForUser(who(u)))?.name, "two");
    await svc.removeMember(root, "two", u.userId);
    equal((await svc.defaultForUser(who(u)))?.name, "one");
    await svc.deactivate(root, "one");
    equal((await svc.defaultForUser(who(u)))?.name, "three");
    await svc.rememberLastUsed("junk", two); // ignored, no throw
    equal(await svc.defaultForUser({ userId: "junk", isSuperAdmin: false }), null);

    // A super admin's own membership resolves with every flag.
    await svc.addMember(root, "three", { email: root.email });
    deepEqual((await svc.defaultForUser(who(root)))?.flags, ALL);
    equal((await svc.defaultForUser(who(root)))?.implicit, false);
  },
);

rootTest(
  "membershipCount() and flagsFor() see live memberships only",
  async ({ svc, root }, db) => {
    const u = await addUser(db, "u@x.example");
    for (const name of ["a", "b", "c"]) {
      await svc.create(root, { name });
      await svc.addMember(root, name, { email: u.email, promoter: true });
    }
    const a = (await svc.get("a"))!.id;
    const b = (await svc.get("b"))!.id;
    equal(await svc.membershipCount(u.userId), 3);
    await svc.deactivate(root, "b");
    await svc.remove(root, "c");
    equal(await svc.membershipCount(u.userId), 1);
    equal(await svc.membershipCount(root.userId), 0);
    equal(await svc.membershipCount("junk"), 0);

    deepEqual(await svc.flagsFor(u.userId, a), { author: false, promoter: true, admin: false });
    deepEqual(await svc.flagsFor(u.userId, b), { author: false, promoter: true, admin: false });
    equal(await svc.flagsFor(root.userId, a), null);
    equal(await svc.flagsFor("junk", a), null);
    equal(await svc.flagsFor(u.userId, "junk"), null);
  },
);
