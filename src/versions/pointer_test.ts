import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { recomputePointer } from "./engine.ts";
import {
  bodyOf,
  ev,
  releasedOne,
  releasedTwo,
  shape,
  type World,
  worlds,
} from "./test_fixtures.ts";
import type { VersionMeta, VersionStatus } from "./types.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Releases `count` more versions after v1; returns the hash of the last release. */
async function releaseMore(w: World, id: string, name: string, hash: string, count: number) {
  for (let i = 0; i < count; i++) {
    const d = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, `r${i}`) });
    await w.life.release(w.asAlice, id, d.version.body_hash);
    hash = d.version.body_hash;
  }
  return hash;
}

const pointerOf = async (w: World, id: string) =>
  (await w.life.view(w.workspaceId, id)).entity.current_version;

forEachStore(
  "discard: RELEASED → DISCARDED; the pointer is recomputed only when it held it",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash } = await releasedOne(w);
      const h3 = await releaseMore(w, id, name, hash, 2); // v1, v2, v3 released; pointer 3
      // Not the pointer: nothing else moves.
      const side = await w.life.discard(w.asBob, id, 2);
      equal(side.version.status, "DISCARDED");
      equal(side.version.discarded_by, w.bob.userId);
      equal(side.entity.current_version, 3);
      // The pointer: the highest eligible live version (v1; v2 is discarded).
      equal((await w.life.discard(w.asBob, id, 3)).entity.current_version, 1);
      deepEqual(await shape(w, id), ["1:RELEASED", "2:DISCARDED", "3:DISCARDED"]);
      // Under the development posture a draft counts: it is the highest live version.
      const d4 = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "d4") });
      equal(d4.version.version, 4);
      equal((await w.life.discard(w.asBob, id, 1)).entity.current_version, 4);
      // The working version is still the draft; with it purged nothing is live: pointer null.
      await w.life.purgeDraft(w.asAlice, id, d4.version.body_hash);
      equal(await pointerOf(w, id), null);
      const view = await w.life.view(w.workspaceId, id);
      equal(view.working, null);
      equal(view.draft, null);
      const rows = await audits(db, ev(w, "version.discarded"));
      deepEqual(
        rows.map((r) => [r.details.version, r.details.previous_current, r.details.current_version]),
        [[2, 3, 3], [3, 3, 1], [1, 1, 4]],
      );
      equal(rows[0].user_id, w.bob.userId);
      // A write has no base now; every If-Match is stale and the answer says so.
      await refuses(
        w.life.update(w.asAlice, id, h3, { body: bodyOf(w.k, name, "x") }),
        w.k.codes.conflict,
        409,
        { current_hash: null, current_version: null, author: null },
      );
    }
  },
);

forEachStore(
  "discard: refused unless RELEASED, for an unknown version, and while pinned",
  async (db) => {
    const pinned = new Set<string>();
    for (
      const w of await worlds(db, {
        pinnedBy: [(_tx, ctx) =>
          Promise.resolve(
            pinned.has(`${ctx.entity.id}:${ctx.version.version}`)
              ? [{ kind: "pipeline" as const, id: "p-1", name: "ops/parent", version: 7 }]
              : [],
          )],
      })
    ) {
      const { id, name, hash } = await releasedOne(w);
      const d2 = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "v2") });
      await refuses(w.life.discard(w.asAlice, id, 2), w.k.codes.not_released, 409, {
        version: 2,
        status: "DRAFT",
      });
      await refuses(w.life.discard(w.asAlice, id, 3), w.k.codes.version_not_found, 404, {
        version: 3,
      });
      pinned.add(`${id}:1`);
      const e = await refuses(w.life.discard(w.asAlice, id, 1), w.k.codes.pinned, 409, {
        version: 1,
        pinned_by: [{ kind: "pipeline", id: "p-1", name: "ops/parent", version: 7 }],
      });
      equal(e.message.includes("pipeline ops/parent v7"), true, e.message);
      pinned.delete(`${id}:1`);
      await w.life.discard(w.asAlice, id, 1);
      await refuses(w.life.discard(w.asAlice, id, 1), w.k.codes.not_released, 409, {
        status: "DISCARDED",
      });
      deepEqual(await shape(w, id), ["1:DISCARDED", "2:DRAFT"]);
      equal((await w.life.view(w.workspaceId, id)).draft?.body_hash, d2.version.body_hash);
      equal((await audits(db, ev(w, "version.discarded"))).length, 1);
    }
  },
);

forEachStore(
  "restore: DISCARDED → RELEASED with the original stamps; pointer only if newer",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash } = await releasedOne(w);
      await releaseMore(w, id, name, hash, 1); // v1, v2; pointer 2
      const v1 = await w.life.version(w.workspaceId, id, 1);
      await w.life.discard(w.asBob, id, 1);
      await w.life.discard(w.asBob, id, 2); // pointer null
      equal(await pointerOf(w, id), null);
      // Current null: the restored version becomes current.
      const r1 = await w.life.restore(w.asBob, id, 1);
      equal(r1.entity.current_version, 1);
      const back = await w.life.version(w.workspaceId, id, 1);
      equal(back.status, "RELEASED");
      equal(back.released_by, v1.released_by);
      equal(back.released_at, v1.released_at);
      equal(back.discarded_at, null);
      equal(back.discarded_by, null);
      // Newer than current: moves.
      equal((await w.life.restore(w.asBob, id, 2)).entity.current_version, 2);
      // Older than current: stays.
      await w.life.discard(w.asBob, id, 1);
      equal((await w.life.restore(w.asBob, id, 1)).entity.current_version, 2);
      await refuses(w.life.restore(w.asBob, id, 1), w.k.codes.not_discarded, 409, {
        version: 1,
        status: "RELEASED",
      });
      await refuses(w.life.restore(w.asBob, id, 5), w.k.codes.version_not_found, 404);
      const rows = await audits(db, ev(w, "version.restored"));
      deepEqual(
        rows.map((r) => [r.details.version, r.details.previous_current, r.details.current_version]),
        [[1, null, 1], [2, 1, 2], [1, 2, 2]],
      );
    }
  },
);

forEachStore(
  "switch current: any live version, never a discarded one; audited once",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash } = await releasedOne(w);
      const h2 = await releaseMore(w, id, name, hash, 1);
      const out = await w.life.switchCurrent(w.asBob, id, 1);
      equal(out.entity.current_version, 1);
      equal(await pointerOf(w, id), 1);
      // Already current: nothing written.
      await w.life.switchCurrent(w.asBob, id, 1);
      // Under the development posture a draft is eligible.
      const d3 = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "d3") });
      equal(d3.version.version, 3);
      equal((await w.life.switchCurrent(w.asBob, id, 3)).entity.current_version, 3);
      // Purging the draft the pointer holds recomputes it (highest eligible live: v2).
      await w.life.purgeDraft(w.asAlice, id, d3.version.body_hash);
      equal(await pointerOf(w, id), 2);
      await w.life.discard(w.asBob, id, 1);
      await refuses(w.life.switchCurrent(w.asBob, id, 1), w.k.codes.not_eligible, 409, {
        version: 1,
        status: "DISCARDED",
      });
      await refuses(w.life.switchCurrent(w.asBob, id, 4), w.k.codes.version_not_found, 404);
      equal(await pointerOf(w, id), 2);
      const rows = await audits(db, ev(w, "current_switched"));
      deepEqual(rows.map((r) => [r.details.from, r.details.to, r.details.status]), [
        [2, 1, "RELEASED"],
        [1, 3, "DRAFT"],
      ]);
      equal(rows[0].user_id, w.bob.userId);
      equal(h2.startsWith("sha256:"), true);
    }
  },
);

forEachStore(
  "version numbers: one pool per entity; discarded numbers stay, a purged draft's returns",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash } = await releasedTwo(w, "2");
      await w.life.discard(w.asAlice, id, 2);
      // Discarded v2 keeps its number: the next draft is 3, not 2.
      const d3 = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "3") });
      equal(d3.version.version, 3);
      await w.life.purgeVersion(w.asAlice, id, 3);
      // The purged 3 returns to the pool.
      const again = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "3b") });
      equal(again.version.version, 3);
      await w.life.release(w.asAlice, id, again.version.body_hash);
      deepEqual(await shape(w, id), ["1:RELEASED", "2:DISCARDED", "3:RELEASED"]);
      // Numbers are identities: the bodies stayed with their numbers throughout.
      deepEqual((await w.life.version(w.workspaceId, id, 2)).body, bodyOf(w.k, name, "2"));
      deepEqual((await w.life.version(w.workspaceId, id, 3)).body, bodyOf(w.k, name, "3b"));
    }
  },
);

Deno.test("recomputePointer() takes the highest eligible live version; drafts only in development", () => {
  const metas = (pairs: [number, VersionStatus][]) =>
    pairs.map(([version, status]) => ({ version, status }) as VersionMeta);
  const all = metas([[1, "RELEASED"], [2, "DISCARDED"], [3, "RELEASED"], [4, "DRAFT"]]);
  equal(recomputePointer(all, 3, "development"), 4);
  equal(recomputePointer(all, 3, "hardened"), 1);
  equal(recomputePointer(all, 4, "hardened"), 3);
  equal(recomputePointer(metas([[1, "DISCARDED"], [2, "DRAFT"]]), 9, "hardened"), null);
  equal(recomputePointer(metas([[1, "RELEASED"]]), 1, "development"), null);
});
