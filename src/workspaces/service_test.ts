import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore, storeTestWith } from "../../tests/support/stores.ts";
import { WorkspaceService } from "./service.ts";
import { addUser, service, serviceWithRoot, setJoinedAt, who } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Tests that start from the workspace service and a super admin. */
const rootTest = storeTestWith(serviceWithRoot);

rootTest(
  "create() makes a workspace without a membership and audits it",
  async ({ svc, root }, db) => {
    const view = await svc.create(root, { name: "team_a-1" });
    deepEqual(Object.keys(view).sort(), ["created_at", "display_name", "is_personal", "name"]);
    equal(view.name, "team_a-1");
    equal(view.display_name, "team_a-1");
    equal(view.is_personal, false);
    ok(!Number.isNaN(Date.parse(view.created_at)));
    const named = await svc.create(root, { name: "b", display_name: "  Team B  " });
    equal(named.display_name, "Team B");
    equal(await svc.membershipCount(root.userId), 0);
    deepEqual((await svc.members("team_a-1")).members, []);

    const [row] = await audits(db, "auth.workspace.created");
    equal(row.user_id, root.userId);
    equal(row.provider, "local");
    equal(row.workspace_id, (await svc.get("team_a-1"))!.id);
    deepEqual(row.details, { workspace: "team_a-1", display_name: "team_a-1" });
    equal((await audits(db, "auth.workspace.created")).length, 2);
  },
);

rootTest("create() refuses names outside [a-z0-9_-]{1,63}", async ({ svc, root }, db) => {
  for (const name of [undefined, null, 42, ["a"], "", "A", "a b", "ü", "a.b", "x".repeat(64)]) {
    await refuses(svc.create(root, { name }), "workspace.validation.name_invalid", 400);
  }
  await rejectsReason(svc.create(root, { name: "UPPER" }));
  equal((await svc.create(root, { name: "x".repeat(63) })).name.length, 63);
  equal((await audits(db, "auth.workspace.created")).length, 1);

  async function rejectsReason(p: Promise<unknown>) {
    try {
      await p;
      ok(false, "expected a refusal");
    } catch (e) {
      ok(typeof (e as { details: { reason: unknown } }).details.reason === "string");
    }
  }
});

rootTest("create() refuses a bad display_name with its field", async ({ svc, root }) => {
  for (const display_name of [5, true, {}, "", "   ", "x".repeat(201)]) {
    await refuses(
      svc.create(root, { name: "a", display_name }),
      "pipeline.execution.invalid_parameter_type",
      400,
      { field: "display_name" },
    );
  }
  equal((await svc.create(root, { name: "a", display_name: "x".repeat(200) })).name, "a");
});

rootTest(
  "create() refuses a taken name, deleted and deactivated ones included",
  async ({ svc, root }, db) => {
    await svc.create(root, { name: "taken" });
    await refuses(svc.create(root, { name: "taken" }), "workspace.validation.duplicate_name", 409, {
      name: "taken",
    });
    await svc.create(root, { name: "gone" });
    await svc.remove(root, "gone");
    await refuses(svc.create(root, { name: "gone" }), "workspace.validation.duplicate_name", 409);
    await svc.create(root, { name: "asleep" });
    await svc.deactivate(root, "asleep");
    await refuses(svc.create(root, { name: "asleep" }), "workspace.validation.duplicate_name", 409);
    // Racing creators: exactly one wins, the other gets the duplicate answer.
    const results = await Promise.allSettled([
      svc.create(root, { name: "race" }),
      svc.create(root, { name: "race" }),
    ]);
    equal(results.filter((r) => r.status === "fulfilled").length, 1);
    equal((await audits(db, "auth.workspace.created")).length, 4);
  },
);

rootTest(
  "get() and view() read live workspaces; deleted ones are unknown",
  async ({ svc, root }) => {
    await svc.create(root, { name: "w", display_name: "W" });
    const rec = (await svc.get("w"))!;
    equal(rec.name, "w");
    equal(rec.deactivated_at, null);
    equal(rec.deleted_at, null);
    equal(await svc.get("nope"), null);
    equal(await svc.get("Not A Name"), null);
    await refuses(svc.view("nope"), "workspace.not_found", 404, { workspace: "nope" });

    await svc.deactivate(root, "w");
    const view = await svc.view("w");
    ok(view.deactivated_at);
    ok((await svc.get("w"))!.deactivated_at);

    await svc.remove(root, "w");
    equal(await svc.get("w"), null);
    await refuses(svc.view("w"), "workspace.not_found", 404);
  },
);

rootTest(
  "listForUser() lists active memberships oldest first with a role",
  async ({ svc, root }, db) => {
    const u = await addUser(db, "u@x.example");
    const flagsByName = {
      a: { admin: true },
      b: { author: true },
      c: { promoter: true },
      d: {},
      off: { author: true },
      del: { author: true },
    };
    let minute = 50;
    for (const [name, flags] of Object.entries(flagsByName)) {
      await svc.create(root, { name, display_name: name.toUpperCase() });
      await svc.addMember(root, name, { email: u.email, ...flags });
      await setJoinedAt(db, name, u.userId, `2026-01-01T00:${minute--}:00.000Z`);
    }
    await svc.create(root, { name: "other" });
    await svc.deactivate(root, "off");
    await svc.remove(root, "del");

    const rows = await svc.listForUser(who(u));
    deepEqual(rows.map((r) => [r.name, r.role]), [
      ["d", "viewer"],
      ["c", "promoter"],
      ["b", "author"],
      ["a", "admin"],
    ]);
    deepEqual(rows[3], {
      name: "a",
      display_name: "A",
      role: "admin",
      author: true,
      promoter: false,
      admin: true,
      joined_at: "2026-01-01T00:50:00.000Z",
    });
    deepEqual(await svc.listForUser({ userId: crypto.randomUUID(), isSuperAdmin: false }), []);
    deepEqual(await svc.listForUser({ userId: "junk", isSuperAdmin: false }), []);
  },
);

rootTest(
  "listForUser() shows a super admin every other workspace, greyed ones dated",
  async ({ svc, root }) => {
    for (const name of ["zeta", "alpha", "mine", "off", "del"]) await svc.create(root, { name });
    await svc.addMember(root, "mine", { email: root.email, promoter: true });
    await svc.deactivate(root, "off");
    await svc.remove(root, "del");

    const rows = await svc.listForUser(who(root));
    deepEqual(rows.map((r) => [r.name, r.role, r.joined_at === null]), [
      ["mine", "promoter", false],
      ["alpha", "super_admin", true],
      ["off", "super_admin", true],
      ["zeta", "super_admin", true],
    ]);
    ok(rows[2].deactivated_at);
    equal("deactivated_at" in rows[1], false);
    deepEqual([rows[1].author, rows[1].promoter, rows[1].admin], [false, false, false]);
  },
);

rootTest("update() changes the display name and audits from and to", async ({ svc, root }, db) => {
  await svc.create(root, { name: "w", display_name: "Old" });
  equal((await svc.update(root, "w", { display_name: "New" })).display_name, "New");
  equal((await svc.view("w")).display_name, "New");
  equal((await svc.update(root, "w", {})).display_name, "New");
  equal((await svc.update(root, "w", { display_name: "New" })).display_name, "New");
  const rows = await audits(db, "workspace.updated");
  equal(rows.length, 1);
  equal(rows[0].user_id, root.userId);
  deepEqual(rows[0].details, {
    workspace: "w",
    from: { display_name: "Old" },
    to: { display_name: "New" },
  });
  await refuses(
    svc.update(root, "w", { display_name: 7 }),
    "pipeline.execution.invalid_parameter_type",
    400,
    { field: "display_name" },
  );
  await refuses(svc.update(root, "nope", { display_name: "X" }), "workspace.not_found", 404);
  await svc.deactivate(root, "w");
  await refuses(svc.update(root, "w", { display_name: "X" }), "workspace.inactive", 404);
});

rootTest(
  "remove() soft-deletes: unreachable everywhere, name reserved, audited",
  async ({ svc, root }, db) => {
    const u = await addUser(db, "u@x.example");
    await svc.create(root, { name: "w" });
    await svc.addMember(root, "w", { email: u.email, admin: true });
    await svc.addMember(root, "w", { email: "later@x.example" });
    const id = (await svc.get("w"))!.id;
    await svc.rememberLastUsed(u.userId, id);
    // A key pinned to the workspace is not content: it does not block the delete.
    await db.execute(
      `INSERT INTO api_keys (id, user_id, workspace_id, name, kind, scopes, bindings, key_hash, created_at)
     VALUES ('svck_k1', $1, $2, 'k', 'user', '[]', '[]', 'h', $3)`,
      [u.userId, id, new Date().toISOString()],
    );

    await svc.remove(root, "w");
    const [row] = await audits(db, "workspace.deleted");
    equal(row.workspace_id, id);
    equal(row.user_id, root.userId);
    deepEqual(row.details, { workspace: "w", invitations_dropped: 1 });
    const stored = await db.first<{ deleted_at: unknown }>(
      "SELECT deleted_at FROM workspaces WHERE id = $1",
      [id],
    );
    ok(stored?.deleted_at);

    equal(await svc.resolveForUser(who(u), "w"), null);
    equal(await svc.resolveForUser(who(root), "w"), null);
    deepEqual(await svc.resolveById(who(u), id), { state: "missing", context: null });
    equal(await svc.defaultForUser(who(u)), null);
    equal(await svc.membershipCount(u.userId), 0);
    equal(await svc.flagsFor(u.userId, id), null);
    deepEqual(await svc.listForUser(who(u)), []);
    deepEqual(await svc.listForUser(who(root)), []);
    await refuses(svc.members("w"), "workspace.not_found", 404);
    await refuses(svc.remove(root, "w"), "workspace.not_found", 404);
    await refuses(svc.deactivate(root, "w"), "workspace.not_found", 404);
    await refuses(svc.addMember(root, "w", { email: "z@x.example" }), "workspace.not_found", 404);
    await refuses(svc.create(root, { name: "w" }), "workspace.validation.duplicate_name", 409);
  },
);

forEachStore(
  "remove() refuses while counted content exists, with counts by kind",
  async (db) => {
    const seen: string[] = [];
    let pipelines = 2;
    const svc = new WorkspaceService({
      db,
      allowlistDomains: [],
      contentCounters: {
        pipelines: (q, workspaceId) => {
          seen.push(workspaceId);
          ok(typeof q.query === "function");
          return Promise.resolve(pipelines);
        },
        templates: () => Promise.resolve(0),
      },
    });
    const root = await addUser(db, "root@x.example", { isAdmin: true });
    await svc.create(root, { name: "w" });
    const id = (await svc.get("w"))!.id;
    await refuses(svc.remove(root, "w"), "workspace.in_use", 409, {
      workspace: "w",
      counts: { pipelines: 2 },
      summary: "2 pipelines",
    });
    deepEqual(seen, [id]);
    ok(await svc.get("w"));
    equal((await audits(db, "workspace.deleted")).length, 0);
    pipelines = 0;
    await svc.remove(root, "w");
    equal(await svc.get("w"), null);
  },
);

rootTest(
  "deactivate() and reactivate() flip the state once each, audited",
  async ({ svc, root }, db) => {
    await svc.create(root, { name: "w" });
    const id = (await svc.get("w"))!.id;
    const off = await svc.deactivate(root, "w");
    ok(off.deactivated_at);
    const again = await svc.deactivate(root, "w");
    equal(again.deactivated_at, off.deactivated_at);
    const rows = await audits(db, "workspace.deactivated");
    equal(rows.length, 1);
    equal(rows[0].workspace_id, id);
    equal(rows[0].user_id, root.userId);
    deepEqual(rows[0].details, { workspace: "w" });

    const on = await svc.reactivate(root, "w");
    equal("deactivated_at" in on, false);
    await svc.reactivate(root, "w");
    equal((await audits(db, "workspace.reactivated")).length, 1);
    equal((await svc.get("w"))!.deactivated_at, null);
    await refuses(svc.deactivate(root, "nope"), "workspace.not_found", 404);
    await refuses(svc.reactivate(root, "nope"), "workspace.not_found", 404);
  },
);

forEachStore("seedDemoWorkspace() creates demo once and never recreates it", async (db) => {
  const svc = service(db);
  equal(await svc.seedDemoWorkspace(), true);
  const demo = (await svc.get("demo"))!;
  equal(demo.display_name, "Demo");
  equal(await svc.seedDemoWorkspace(), false);
  const [row, ...more] = await audits(db, "auth.workspace.created");
  equal(more.length, 0);
  equal(row.user_id, null);
  equal(row.provider, "system");
  equal(row.workspace_id, demo.id);
  equal(row.details.seeded, true);

  const root = await addUser(db, "root@x.example", { isAdmin: true });
  await svc.deactivate(root, "demo");
  equal(await svc.seedDemoWorkspace(), false);
  await svc.remove(root, "demo");
  equal(await svc.seedDemoWorkspace(), false);
  equal(await svc.get("demo"), null);
  const n = await db.first<{ n: unknown }>(
    "SELECT count(*) AS n FROM workspaces WHERE name = 'demo'",
  );
  equal(Number(n?.n), 1);
});

forEachStore("seedDemoWorkspace() settles racing replicas on one row", async (db, store) => {
  // Two PostgreSQL pools race for real; one SQLite process serialises on its connection's mutex
  // (a second synchronous connection in the same thread would only wait out the busy timeout).
  const other = service(store.kind === "postgres" ? await store.open() : db);
  const results = await Promise.all([service(db).seedDemoWorkspace(), other.seedDemoWorkspace()]);
  deepEqual(results.sort(), [false, true]);
  equal((await audits(db, "auth.workspace.created")).length, 1);
});
