import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { queryAudit } from "../audit/mod.ts";
import { ensureBootstrapPlaceholder, insertUserRow } from "./bootstrap_admin.ts";
import { findUserByEmail } from "./users_repo.ts";

const grants = async (db: Parameters<typeof queryAudit>[0]) =>
  (await queryAudit(db, { event: "auth.user.admin_granted", offset: 0, limit: 50 })).items;

forEachStore(
  "ensureBootstrapPlaceholder() creates the admin row once; a restart touches nothing",
  async (db) => {
    equal(await ensureBootstrapPlaceholder(db, "Root@Corp.example"), true);
    const row = (await findUserByEmail(db, "root@corp.example"))!;
    deepEqual(
      [row.provider, row.provider_subject, row.display_name, row.is_active, row.is_admin],
      ["bootstrap", "root@corp.example", "root", true, true],
    );
    equal(await ensureBootstrapPlaceholder(db, "root@corp.example"), false);
    deepEqual(await findUserByEmail(db, "root@corp.example"), row);
    const audit = await grants(db);
    equal(audit.length, 1);
    deepEqual([audit[0].provider, audit[0].details.actor], ["bootstrap", "bootstrap"]);
  },
);

forEachStore(
  "the bootstrap grant fires at row creation only: login first, then startup, then after a revoke",
  async (db) => {
    const id = await db.transaction((tx) =>
      insertUserRow(tx, {
        email: "root@corp.example",
        displayName: "Root",
        provider: "corp",
        providerSubject: "s-1",
      }, "ROOT@corp.example")
    );
    equal((await findUserByEmail(db, "root@corp.example"))?.is_admin, true);
    equal(await ensureBootstrapPlaceholder(db, "root@corp.example"), false);
    await db.execute("UPDATE users SET is_admin = $1 WHERE id = $2", [false, id!]);
    equal(await ensureBootstrapPlaceholder(db, "root@corp.example"), false);
    equal((await findUserByEmail(db, "root@corp.example"))?.is_admin, false);
    equal((await grants(db)).length, 1);
    // Any other email is created without the flag and without a grant.
    await db.transaction((tx) =>
      insertUserRow(tx, {
        email: "ada@corp.example",
        displayName: "Ada",
        provider: "corp",
        providerSubject: "s-2",
      }, "root@corp.example")
    );
    equal((await findUserByEmail(db, "ada@corp.example"))?.is_admin, false);
    equal((await grants(db)).length, 1);
  },
);

forEachStore("racing placeholders settle on one row and one grant", async (db, store) => {
  // Replicas exist only on PostgreSQL; the embedded store serialises its own transactions (two
  // SQLite connections in one thread would block each other on the file lock instead).
  const other = store.kind === "postgres" ? await store.open() : db;
  const results = await Promise.all([
    ensureBootstrapPlaceholder(db, "root@corp.example"),
    ensureBootstrapPlaceholder(other, "root@corp.example"),
  ]);
  deepEqual(results.filter(Boolean).length, 1);
  equal((await grants(db)).length, 1);
});
