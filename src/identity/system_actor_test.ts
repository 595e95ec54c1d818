import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { bool } from "../store/mod.ts";
import { ensureSystemActor, SYSTEM_EMAIL } from "./mod.ts";

forEachStore("ensureSystemActor() creates the row once with the spec's fields", async (db) => {
  const actor = await ensureSystemActor(db);
  const row = await db.first<Record<string, unknown>>("SELECT * FROM users WHERE id = $1", [
    actor.id,
  ]);
  equal(row?.provider, "system");
  equal(row?.provider_subject, "system");
  equal(row?.email, SYSTEM_EMAIL);
  equal(row?.display_name, "System");
  equal(bool(row?.is_admin), false);
  equal(row?.password_hash, null);
});

forEachStore(
  "ensureSystemActor() on restart leaves the row untouched, updated_at included",
  async (db) => {
    const first = await ensureSystemActor(db, () => new Date("2026-01-01T00:00:00Z"));
    const second = await ensureSystemActor(db, () => new Date("2026-01-02T00:00:00Z"));
    deepEqual(second, first);
    equal((await db.query("SELECT id FROM users")).length, 1);
  },
);

forEachStore("replicas racing ensureSystemActor() all read the same row", async (_db, store) => {
  const dbs = await Promise.all([store.open(), store.open(), store.open()]);
  const actors = await Promise.all(dbs.map((d) => ensureSystemActor(d)));
  equal(new Set(actors.map((a) => a.id)).size, 1);
});
