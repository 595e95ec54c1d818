import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { queryAudit } from "../audit/mod.ts";
import { attrsOf, bodyOf, createOne, ev, releasedTwo, shape, worlds } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

const DISABLED = "pipeline.authoring.disabled";

forEachStore(
  "hardened posture: every authoring transition is 403 pipeline.authoring.disabled",
  async (db) => {
    for (const w of await worlds(db)) {
      const h = w.hardened;
      // Content as it would stand after promotion plus a stale draft from before the switch.
      const { id, name, hash2 } = await releasedTwo(w);
      await w.life.discard(w.asAlice, id, 1);
      const d3 = await w.life.update(w.asAlice, id, hash2, {
        body: bodyOf(w.k, name, "v3"),
      });
      const lone = await createOne(w);
      const before = await shape(w, id);
      const auditBefore = (await queryAudit(db, { offset: 0, limit: 1 })).total;

      // Thunks: a refusal created early would be an unhandled rejection before its turn.
      const attempts: [string, () => Promise<unknown>][] = [
        [
          "create",
          () => h.create(w.asAlice, { name: "x/y", body: bodyOf(w.k, "x/y"), attrs: attrsOf(w.k) }),
        ],
        [
          "update",
          () => h.update(w.asAlice, id, d3.version.body_hash, { body: bodyOf(w.k, name, "v4") }),
        ],
        ["release", () => h.release(w.asAlice, id, d3.version.body_hash)],
        ["discard", () => h.discard(w.asAlice, id, 2)],
        ["restore", () => h.restore(w.asAlice, id, 1)],
        ["purge_draft", () => h.purgeDraft(w.asAlice, id, d3.version.body_hash)],
        ["purge_version", () => h.purgeVersion(w.asAlice, id, 3)],
        ["delete", () => h.deleteEntity(w.asAlice, lone.id)],
      ];
      for (const [operation, attempt] of attempts) {
        await refuses(attempt(), DISABLED, 403, { kind: w.k.kind, operation });
      }
      // Refused before anything else is looked at: no precondition or existence oracle.
      await refuses(h.update(w.asAlice, id, undefined, { body: {} }), DISABLED, 403);
      await refuses(h.discard(w.asAlice, crypto.randomUUID(), 1), DISABLED, 403);
      deepEqual(await shape(w, id), before);
      deepEqual(await shape(w, lone.id), ["1:DRAFT"]);
      equal((await queryAudit(db, { offset: 0, limit: 1 })).total, auditBefore);
      // Reads are never refused.
      equal((await h.view(w.workspaceId, id)).working?.version, 3);
    }
  },
);

forEachStore(
  "hardened posture: switch current is allowed onto RELEASED, never onto a draft",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash2 } = await releasedTwo(w);
      const d3 = await w.life.update(w.asAlice, id, hash2, {
        body: bodyOf(w.k, name, "v3"),
      });
      equal(d3.version.version, 3);
      const out = await w.hardened.switchCurrent(w.asBob, id, 1);
      equal(out.entity.current_version, 1);
      await refuses(w.hardened.switchCurrent(w.asBob, id, 3), w.k.codes.not_eligible, 409, {
        version: 3,
        status: "DRAFT",
        reason: "a draft cannot be current under the hardened posture",
      });
      // The same switch is fine under the development posture.
      equal((await w.life.switchCurrent(w.asBob, id, 3)).entity.current_version, 3);
      const { items } = await queryAudit(db, {
        event: ev(w, "current_switched"),
        offset: 0,
        limit: 9,
      });
      equal(items.length, 2);
    }
  },
);
