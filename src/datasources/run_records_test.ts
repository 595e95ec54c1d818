/**
 * The records runs read (`recordInWorkspace`), cached per instance, on both stores: a repeat is
 * served from memory, and an update, delete, grant or revoke made on this instance or on another
 * one sharing the shared store is seen by the next read.
 */
import { equal, notEqual, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { refuses } from "../../tests/support/refusals.ts";
import { eventually } from "../../tests/support/wait.ts";
import { createLogger } from "../lib/log.ts";
import { MemoryStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { CredentialCipher, DatasourceService } from "./mod.ts";
import { datasourceFixture, pgBody } from "./test_fixtures.ts";

/** A second instance's service over the same store. */
async function replica(db: Db) {
  return new DatasourceService({
    db,
    cipher: await CredentialCipher.create(crypto.getRandomValues(new Uint8Array(32))),
    logger: createLogger("error"),
    memberWritesEnabled: true,
    findWorkspace: async (name) =>
      (await db.first<{ id: string; name: string }>(
        "SELECT id, name FROM workspaces WHERE name = $1 AND deleted_at IS NULL",
        [name],
      )) ?? null,
  });
}

/** Whether `svc` no longer finds the datasource `name` for a run of the workspace. */
async function gone(svc: DatasourceService, workspaceId: string, name: string): Promise<boolean> {
  try {
    await svc.recordInWorkspace(workspaceId, name);
    return false;
  } catch {
    return true;
  }
}

forEachStore("a run's datasource record is read once, then follows every change", async (db) => {
  const f = await datasourceFixture(db);
  const shared = new MemoryStore();
  const other = await replica(db);
  await f.ds.follow(shared);
  await other.follow(shared);
  try {
    const acme = await f.ctx("acme", f.admin);
    await f.ds.create(f.admin, acme, pgBody("wh"));
    const first = await f.ds.recordInWorkspace(acme.id, "wh");
    equal(first.jdbc_url, "jdbc:postgresql://127.0.0.1:5432/warehouse");
    // The steady state: the same (frozen) record, no read.
    equal(await f.ds.recordInWorkspace(acme.id, "wh"), first);
    ok(Object.isFrozen(first) && Object.isFrozen(first.properties));
    equal((await other.recordInWorkspace(acme.id, "wh")).jdbc_url, first.jdbc_url);

    // An update: seen here at once, and on the other instance through the channel.
    const moved = "jdbc:postgresql://127.0.0.1:5432/elsewhere";
    await f.ds.update(f.admin, acme, "wh", pgBody("wh", { jdbc_url: moved }));
    const updated = await f.ds.recordInWorkspace(acme.id, "wh");
    notEqual(updated, first);
    equal(updated.jdbc_url, moved);
    await eventually(async () => (await other.recordInWorkspace(acme.id, "wh")).jdbc_url === moved);

    // A delete: not found on both.
    await f.ds.remove(f.admin, acme, "wh");
    await refuses(() => f.ds.recordInWorkspace(acme.id, "wh"), "datasource.not_found");
    await eventually(() => gone(other, acme.id, "wh"));

    // A global one: usable once granted, not after the revoke, on both instances.
    await f.ds.create(f.root, null, pgBody("lake", { global: true }));
    await f.ds.grant(f.root, "lake", "acme");
    equal((await f.ds.recordInWorkspace(acme.id, "lake")).name, "lake");
    equal((await other.recordInWorkspace(acme.id, "lake")).name, "lake");
    await f.ds.revoke(f.root, "lake", "acme");
    await refuses(() => f.ds.recordInWorkspace(acme.id, "lake"), "datasource.not_found");
    await eventually(() => gone(other, acme.id, "lake"));
    await other.grant(f.root, "lake", "acme");
    await eventually(async () => (await f.ds.recordInWorkspace(acme.id, "lake")).name === "lake");
  } finally {
    await f.ds.unfollow();
    await other.unfollow();
    await shared.close();
  }
});
