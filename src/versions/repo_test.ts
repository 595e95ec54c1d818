import { equal, ok, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import type { Db, SqlValue } from "../store/mod.ts";
import { bodyOf, createOne, releasedOne, worlds } from "./test_fixtures.ts";

/** Runs `sql` in its own transaction and expects the store to refuse it. */
async function refused(db: Db, sql: string, params: SqlValue[]) {
  await rejects(db.transaction((tx) => tx.execute(sql, params)), sql);
}

forEachStore("the schema keeps the lifecycle's invariants even against direct SQL", async (db) => {
  for (const w of await worlds(db)) {
    const { k } = w;
    const { id, name, hash } = await releasedOne(w);
    await w.life.update(w.asAlice, id, hash, { body: bodyOf(k, name, "v2") });
    const draft = await createOne(w);
    const now = new Date().toISOString();
    // The pointer references a version of the same entity.
    await refused(db, `UPDATE ${k.entityTable} SET current_version = 9 WHERE id = $1`, [id]);
    // …of the same entity: version 2 exists, but not for this one.
    await refused(db, `UPDATE ${k.entityTable} SET current_version = 2 WHERE id = $1`, [draft.id]);
    // At most one draft per entity.
    await refused(
      db,
      `INSERT INTO ${k.versionTable} (${k.fk}, version, status, body, body_hash, created_by, created_at, updated_by, updated_at)
       VALUES ($1, 2, 'DRAFT', '{}', 'sha256:x', $2, $3, $2, $3)`,
      [draft.id, w.alice.userId, now],
    );
    // Stamps follow the status: a RELEASED row has released_at, a DISCARDED one discarded_at.
    const v1 = `WHERE ${k.fk} = $1 AND version = 1`;
    await refused(db, `UPDATE ${k.versionTable} SET released_at = NULL ${v1}`, [id]);
    await refused(db, `UPDATE ${k.versionTable} SET status = 'DISCARDED' ${v1}`, [id]);
    await refused(db, `UPDATE ${k.versionTable} SET status = 'GONE' ${v1}`, [id]);
    await refused(db, `UPDATE ${k.versionTable} SET released_at = $2 WHERE ${k.fk} = $1`, [
      draft.id,
      now,
    ]);
    // A number is at least 1; a version row belongs to an existing entity.
    await refused(db, `UPDATE ${k.versionTable} SET version = 0 ${v1}`, [draft.id]);
    await refused(
      db,
      `INSERT INTO ${k.versionTable} (${k.fk}, version, status, body, body_hash, created_by, created_at, updated_by, updated_at)
       VALUES ($1, 1, 'DRAFT', '{}', 'sha256:x', $2, $3, $2, $3)`,
      [crypto.randomUUID(), w.alice.userId, now],
    );
    if (k.kind === "template") {
      await refused(db, `UPDATE templates SET dialect = NULL WHERE id = $1`, [id]);
      await refused(db, `UPDATE templates SET type = 'pdf' WHERE id = $1`, [id]);
    }
    const rows = await db.query<{ n: number }>(
      `SELECT count(*) AS n FROM ${k.versionTable} WHERE ${k.fk} IN ($1, $2)`,
      [id, draft.id],
    );
    equal(Number(rows[0].n), 3);
    ok((await w.life.view(w.workspaceId, id)).entity.current_version === 1);
  }
});
