import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { bodyHash, canonicalJson } from "../lib/canonical_json.ts";
import {
  attrsOf,
  bodyOf,
  createOne,
  ev,
  refusingHook,
  releasedOne,
  releasedTwo,
  shape,
  worlds,
} from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

forEachStore(
  "create: DRAFT version 1, pointer null, audited; a taken name is refused",
  async (db) => {
    for (const w of await worlds(db)) {
      const name = "sales/daily";
      const body = bodyOf(w.k, name, "v1");
      const saved = await w.life.create(w.asAlice, { name, body, attrs: attrsOf(w.k, "v1") });
      equal(saved.unchanged, false);
      equal(saved.version.version, 1);
      equal(saved.version.status, "DRAFT");
      equal(saved.version.body_hash, bodyHash(body));
      equal(saved.version.canonical, canonicalJson(body));
      equal(saved.entity.current_version, null);
      equal(saved.entity.owner_id, w.alice.userId);
      const view = await w.life.view(w.workspaceId, saved.entity.id);
      equal(view.entity.name, name);
      equal(view.entity.current_version, null);
      equal(view.working?.version, 1);
      deepEqual(view.working?.body, body);
      deepEqual(view.draft, {
        version: 1,
        body_hash: saved.version.body_hash,
        updated_by: w.alice.userId,
        updated_at: saved.version.updated_at,
      });
      if (w.k.kind === "template") equal(view.entity.attrs.display_name, "Template v1");
      const [row] = await audits(db, ev(w, "created"));
      equal(row.user_id, w.alice.userId);
      equal(row.workspace_id, w.workspaceId);
      deepEqual(row.details, {
        [`${w.k.kind}_id`]: w.k.kind === "pipeline" ? saved.entity.id : name,
        name,
        version: 1,
        body_hash: saved.version.body_hash,
      });
      await refuses(
        w.life.create(w.asBob, { name, body: bodyOf(w.k, name, "x"), attrs: attrsOf(w.k) }),
        w.k.codes.duplicate_name,
        409,
        { name },
      );
      equal((await audits(db, ev(w, "created"))).length, 1);
    }
  },
);

forEachStore(
  "update (first write after a release): a new DRAFT N+1, the release untouched",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash: releasedHash } = await releasedOne(w);
      const body = bodyOf(w.k, name, "v2");
      const saved = await w.life.update(w.asBob, id, releasedHash, { body });
      equal(saved.unchanged, false);
      equal(saved.version.version, 2);
      equal(saved.version.status, "DRAFT");
      equal(saved.version.created_by, w.bob.userId);
      deepEqual(await shape(w, id), ["1:RELEASED", "2:DRAFT"]);
      const view = await w.life.view(w.workspaceId, id);
      equal(view.entity.current_version, 1);
      equal(view.working?.version, 2);
      deepEqual(view.working?.body, body);
      equal((await w.life.version(w.workspaceId, id, 1)).body_hash, releasedHash);
    }
  },
);

forEachStore(
  "update (identical body, no draft): a no-op reporting the release, no number used",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash } = await releasedOne(w);
      const before = await w.life.view(w.workspaceId, id);
      const same = await w.life.update(w.asBob, id, hash, { body: bodyOf(w.k, name, "v1") });
      equal(same.unchanged, true);
      equal(same.version.status, "RELEASED");
      equal(same.version.version, 1);
      equal(same.version.body_hash, hash);
      deepEqual(await shape(w, id), ["1:RELEASED"]);
      equal((await w.life.view(w.workspaceId, id)).entity.updated_at, before.entity.updated_at);
      // The number was not consumed: the next real change is version 2.
      const next = await w.life.update(w.asBob, id, hash, { body: bodyOf(w.k, name, "v2") });
      equal(next.version.version, 2);
      if (w.k.kind === "template") {
        // Display fields are outside the hashed content and still move at save time.
        const { hash: h3 } = await releasedOne(w, "lib/other");
        const moved = await w.life.update(
          w.asBob,
          (await w.life.findByName(w.workspaceId, "lib/other"))!.id,
          h3,
          {
            body: bodyOf(w.k, "lib/other", "v1"),
            attrs: { display_name: "Renamed", description: "now described" },
          },
        );
        equal(moved.unchanged, true);
        equal(moved.version.status, "RELEASED");
        equal(moved.entity.attrs.display_name, "Renamed");
        const stored = await w.life.findByName(w.workspaceId, "lib/other");
        equal(stored?.attrs.display_name, "Renamed");
        equal(stored?.attrs.description, "now described");
      }
    }
  },
);

forEachStore(
  "update (later writes): the same DRAFT is overwritten against its own hash",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash: v1 } = await releasedOne(w);
      const first = await w.life.update(w.asAlice, id, v1, { body: bodyOf(w.k, name, "a") });
      const second = await w.life.update(w.asBob, id, first.version.body_hash, {
        body: bodyOf(w.k, name, "b"),
      });
      equal(second.version.version, 2);
      equal(second.version.updated_by, w.bob.userId);
      equal(second.version.created_by, w.alice.userId);
      deepEqual(await shape(w, id), ["1:RELEASED", "2:DRAFT"]);
      deepEqual((await w.life.version(w.workspaceId, id, 2)).body, bodyOf(w.k, name, "b"));
      // The release's hash no longer addresses the working version.
      await refuses(
        w.life.update(w.asAlice, id, v1, { body: bodyOf(w.k, name, "c") }),
        w.k.codes.conflict,
        409,
        { current_hash: second.version.body_hash, current_version: 2, author: w.bob.userId },
      );
      // A draft written back to the release's content stays a draft (its number is already used).
      const back = await w.life.update(w.asAlice, id, second.version.body_hash, {
        body: bodyOf(w.k, name, "v1"),
      });
      equal(back.version.status, "DRAFT");
      equal(back.version.body_hash, v1);
      // Saving the draft's own content again changes nothing.
      const again = await w.life.update(w.asBob, id, v1, { body: bodyOf(w.k, name, "v1") });
      equal(again.unchanged, true);
      equal(again.version.updated_by, w.alice.userId);
    }
  },
);

forEachStore("release: hooks, pointer moves, index adopts the body, audited", async (db) => {
  const seen: string[] = [];
  for (
    const w of await worlds(db, {
      beforeRelease: [async (_tx, ctx) => {
        seen.push(`${ctx.kind}:${ctx.version.version}`);
        return await Promise.resolve({ checked: true });
      }],
    })
  ) {
    const { id, name, hash } = await createOne(w);
    const renamed = "sales/renamed";
    const draft = await w.life.update(w.asAlice, id, hash, {
      body: { ...bodyOf(w.k, name, "v1b"), ...(w.k.kind === "pipeline" ? { name: renamed } : {}) },
    });
    const out = await w.life.release(w.asBob, id, draft.version.body_hash, {
      auditDetails: { override_checks_reason: "known flake in staging" },
    });
    equal(out.version.status, "RELEASED");
    equal(out.version.released_by, w.bob.userId);
    equal(out.entity.current_version, 1);
    deepEqual(out.extras, { checked: true });
    const view = await w.life.view(w.workspaceId, id);
    equal(view.draft, null);
    equal(view.working?.status, "RELEASED");
    equal(view.entity.current_version, 1);
    if (w.k.kind === "pipeline") {
      equal(view.entity.name, renamed);
      deepEqual(view.entity.attrs, { display_name: "Pipeline v1b", description: "about v1b" });
    } else {
      equal(view.entity.name, name);
    }
    const [row] = await audits(db, ev(w, "version.released"));
    equal(row.user_id, w.bob.userId);
    deepEqual(row.details, {
      [`${w.k.kind}_id`]: w.k.kind === "pipeline" ? id : name,
      name: view.entity.name,
      version: 1,
      body_hash: draft.version.body_hash,
      previous_current: null,
      override_checks_reason: "known flake in staging",
      checked: true,
    });
    // Nothing left to release.
    await refuses(w.life.release(w.asBob, id, draft.version.body_hash), w.k.codes.not_draft, 409, {
      operation: "release",
      status: "RELEASED",
    });
  }
  deepEqual(seen, ["pipeline:1", "template:1"]);
});

forEachStore("release: a refusing hook rolls everything back", async (db) => {
  for (const w of await worlds(db)) {
    const { id, name, hash } = await releasedOne(w);
    const draft = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "v2") });
    const refuse = refusingHook("hook said no");
    await refuses(
      w.life.release(w.asBob, id, draft.version.body_hash, { beforeRelease: [refuse] }),
      "pipeline.version.not_eligible",
      409,
    );
    deepEqual(await shape(w, id), ["1:RELEASED", "2:DRAFT"]);
    equal((await w.life.view(w.workspaceId, id)).entity.current_version, 1);
    equal((await audits(db, ev(w, "version.released"))).length, 1);
    const out = await w.life.release(w.asBob, id, draft.version.body_hash);
    equal(out.entity.current_version, 2);
    equal((await audits(db, ev(w, "version.released"))).at(-1)!.details.previous_current, 1);
  }
});

forEachStore(
  "purge draft: deleted, its number returns, a sole version takes the entity",
  async (db) => {
    const purged: string[] = [];
    for (
      const w of await worlds(db, {
        beforePurge: [(_tx, ctx) => {
          purged.push(`${ctx.kind}:${ctx.version.version}:${ctx.takes_entity}`);
          return Promise.resolve({ executions_deleted: 0 });
        }],
      })
    ) {
      const { id, name, hash } = await releasedOne(w);
      const d2 = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "v2") });
      await refuses(w.life.purgeDraft(w.asAlice, id, hash), w.k.codes.conflict, 409, {
        current_hash: d2.version.body_hash,
      });
      const out = await w.life.purgeDraft(w.asAlice, id, d2.version.body_hash);
      deepEqual(out, {
        entity: { ...out.entity!, current_version: 1 },
        version: 2,
        entity_purged: false,
        extras: { executions_deleted: 0 },
      });
      deepEqual(await shape(w, id), ["1:RELEASED"]);
      await refuses(w.life.purgeDraft(w.asAlice, id, hash), w.k.codes.not_draft, 409);
      // Number 2 is free again.
      const d2again = await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "v2b") });
      equal(d2again.version.version, 2);

      const sole = await createOne(w);
      const gone = await w.life.purgeDraft(w.asBob, sole.id, sole.hash);
      equal(gone.entity_purged, true);
      equal(gone.entity, null);
      await refuses(w.life.view(w.workspaceId, sole.id), w.k.codes.not_found, 404);
      equal(await w.life.findByName(w.workspaceId, sole.name), null);
      const rows = await audits(db, ev(w, "version.purged"));
      deepEqual(rows.map((r) => [r.details.version, r.details.entity_purged]), [[2, false], [
        1,
        true,
      ]]);
      equal(rows[1].user_id, w.bob.userId);
      // The name is free again too.
      equal((await createOne(w, sole.name)).name, sole.name);
    }
    deepEqual(purged, [
      "pipeline:2:false",
      "pipeline:1:true",
      "template:2:false",
      "template:1:true",
    ]);
  },
);

forEachStore(
  "purge by version: a draft is deleted; released and discarded are last_release",
  async (db) => {
    for (const w of await worlds(db)) {
      const { id, name, hash2 } = await releasedTwo(w);
      await w.life.discard(w.asAlice, id, 1);
      const d3 = await w.life.update(w.asAlice, id, hash2, {
        body: bodyOf(w.k, name, "v3"),
      });
      await refuses(w.life.purgeVersion(w.asAlice, id, 2), w.k.codes.last_release, 409, {
        version: 2,
        status: "RELEASED",
      });
      await refuses(w.life.purgeVersion(w.asAlice, id, 1), w.k.codes.last_release, 409, {
        version: 1,
        status: "DISCARDED",
      });
      await refuses(w.life.purgeVersion(w.asAlice, id, 9), w.k.codes.version_not_found, 404);
      const out = await w.life.purgeVersion(w.asAlice, id, d3.version.version);
      equal(out.entity_purged, false);
      deepEqual(await shape(w, id), ["1:DISCARDED", "2:RELEASED"]);
      const lone = await createOne(w);
      equal((await w.life.purgeVersion(w.asAlice, lone.id, 1)).entity_purged, true);
      equal(await w.life.findByName(w.workspaceId, lone.name), null);
    }
  },
);

forEachStore("entity delete: only while the sole version is a draft", async (db) => {
  for (const w of await worlds(db)) {
    const draftOnly = await createOne(w);
    const out = await w.life.deleteEntity(w.asBob, draftOnly.id, {
      auditDetails: { exclusive_draft_templates: [] },
    });
    deepEqual(out, { entity: null, version: 1, entity_purged: true, extras: {} });
    await refuses(w.life.view(w.workspaceId, draftOnly.id), w.k.codes.not_found, 404);
    const [row] = await audits(db, ev(w, "deleted"));
    equal(row.user_id, w.bob.userId);
    deepEqual(row.details.exclusive_draft_templates, []);

    const { id, name, hash } = await releasedOne(w);
    await refuses(w.life.deleteEntity(w.asBob, id), w.k.codes.last_release, 409, {
      version: 1,
      status: "RELEASED",
      versions: 1,
    });
    await w.life.update(w.asAlice, id, hash, { body: bodyOf(w.k, name, "v2") });
    await refuses(w.life.deleteEntity(w.asBob, id), w.k.codes.last_release, 409, { versions: 2 });
    equal((await w.life.view(w.workspaceId, id)).entity.id, id);
    ok((await audits(db, ev(w, "deleted"))).length === 1);
  }
});

forEachStore("a body with no JSON form is 400 naming where, and nothing is written", async (db) => {
  for (const w of await worlds(db)) {
    const { id, name, hash } = await createOne(w);
    const bad = { ...bodyOf(w.k, name, "x"), nodes: [{ id: "a", limit: NaN }] };
    await refuses(
      w.life.update(w.asAlice, id, hash, { body: bad }),
      "pipeline.execution.invalid_parameter_type",
      400,
      { field: "body.nodes[0].limit", reason: "is NaN, which has no JSON form" },
    );
    await refuses(
      w.life.create(w.asAlice, { name: "x/y", body: { when: new Date(0) } as never }),
      "pipeline.execution.invalid_parameter_type",
      400,
      { field: "body.when" },
    );
    equal((await w.life.view(w.workspaceId, id)).working?.body_hash, hash);
    equal(await w.life.findByName(w.workspaceId, "x/y"), null);
  }
});
