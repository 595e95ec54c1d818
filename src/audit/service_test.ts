import { deepEqual, equal, rejects } from "node:assert/strict";
import type { AppError } from "../errors/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import { requestContext } from "../lib/log.ts";
import { queryAudit, recordAudit } from "./mod.ts";
import { auditTrail } from "./service.ts";

forEachStore(
  "recordAudit() writes the spec's record shape with the request's source",
  async (db) => {
    await requestContext.run(
      { correlationId: crypto.randomUUID(), sourceIp: "203.0.113.7", userAgent: "curl/8" },
      () =>
        recordAudit(db, {
          event: "auth.logout",
          userId: null,
          provider: "local",
          details: { a: 1 },
        }),
    );
    const { items, total } = await queryAudit(db, { offset: 0, limit: 10 });
    equal(total, 1);
    const row = items[0];
    equal(row.event, "auth.logout");
    equal(row.source_ip, "203.0.113.7");
    equal(row.user_agent, "curl/8");
    deepEqual(row.details, { a: 1 });
    equal(row.timestamp.endsWith("Z"), true);
  },
);

forEachStore("an event recorded `by` a principal names its user and provider", async (db) => {
  const userId = crypto.randomUUID();
  await recordAudit(db, { event: "auth.logout", by: { userId, provider: "corp-sso" } });
  const { items } = await queryAudit(db, { offset: 0, limit: 10 });
  deepEqual([items[0].user_id, items[0].provider], [userId, "corp-sso"]);
});

forEachStore("an audit row written in a rolled-back transaction vanishes with it", async (db) => {
  await db.transaction(async (tx) => {
    await recordAudit(tx, { event: "auth.logout" });
  });
  await db.transaction(async (tx) => {
    await recordAudit(tx, { event: "auth.user.created" });
    throw new Error("rollback");
  }).catch(() => {});
  const { items } = await queryAudit(db, { offset: 0, limit: 10 });
  deepEqual(items.map((i) => i.event), ["auth.logout"]);
});

forEachStore("queryAudit() filters by event and time, newest first, paged", async (db) => {
  const events = ["auth.logout", "mail.sent", "auth.logout", "auth.logout"] as const;
  for (const [i, event] of events.entries()) {
    await recordAudit(db, { event }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
  }
  const page = await queryAudit(db, { event: "auth.logout", offset: 1, limit: 1 });
  equal(page.total, 3);
  equal(page.items.length, 1);
  const all = await queryAudit(db, { offset: 0, limit: 10 });
  const times = all.items.map((i) => i.timestamp);
  deepEqual(times, [...times].sort().reverse());
  const later = await queryAudit(db, { from: all.items[1].timestamp, offset: 0, limit: 10 });
  equal(later.total, 2);
});

forEachStore(
  "issue 23 item 5: auditTrail() scopes by reader and filters by actor",
  async (db) => {
    const [ws, other, alice, bob] = [1, 2, 3, 4].map(() => crypto.randomUUID());
    await recordAudit(db, { event: "auth.logout", userId: alice, workspaceId: ws });
    await recordAudit(db, { event: "auth.logout", userId: bob, workspaceId: ws });
    await recordAudit(db, { event: "auth.logout", userId: alice, workspaceId: other });
    const page = { offset: 0, limit: 10 };
    const admin = { isSuperAdmin: false, workspaceId: ws };
    equal((await auditTrail(db, admin, page)).total, 2);
    // A workspace admin cannot widen the view; a super admin sees all unless they narrow it.
    equal((await auditTrail(db, admin, { ...page, scope: "instance" })).total, 2);
    const root = { isSuperAdmin: true, workspaceId: ws };
    equal((await auditTrail(db, root, page)).total, 3);
    equal((await auditTrail(db, root, { ...page, scope: "workspace" })).total, 2);
    const alices = await auditTrail(db, root, { ...page, actor: alice });
    deepEqual(alices.items.map((i) => i.user_id), [alice, alice]);
    await rejects(
      () => auditTrail(db, { isSuperAdmin: false, workspaceId: null }, page),
      (e: AppError) => e.code === "workspace.membership_required",
    );
  },
);
