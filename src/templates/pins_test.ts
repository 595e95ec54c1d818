import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { PIPELINE_KIND, VersionLifecycle } from "../versions/mod.ts";
import { dropPins, pinnersOf, recordPins, resolvePins } from "./pins.ts";
import { htmlTemplate, setup, sql } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

const names = (pinners: { kind: string; name: string; version: number }[]) =>
  pinners.map((p) => `${p.kind} ${p.name} v${p.version}`);

forEachStore(
  "a template version pinned by an import or a pipeline version cannot be discarded, purged or deleted",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const lib = await svc.create(ctx, sql("lib/where", "WHERE 1 = 1"));
    await svc.release(ctx, "lib/where", lib.body_hash);
    const user = await svc.create(
      ctx,
      sql("q/user", "{% render 'w' %}", { imports: [{ id: "lib/where", version: 1, alias: "w" }] }),
    );
    // A pipeline version pins lib/where v1 too, the way the pipelines service will.
    const pipelines = new VersionLifecycle({ db, kind: PIPELINE_KIND, authoringEnabled: true });
    const pipe = await pipelines.create(ctx, { name: "team/daily", body: { name: "team/daily" } });
    const libId = (await svc.lifecycle.findByName(workspaceId, "lib/where"))!.id;
    await db.transaction((tx) =>
      recordPins(tx, { kind: "pipeline", id: pipe.entity.id, version: 1 }, [
        { template_id: libId, version: 1 },
        { template_id: libId, version: 1 },
      ])
    );
    const pinners = await pinnersOf(db, libId, 1);
    deepEqual(names(pinners), ["pipeline team/daily v1", "template q/user v1"]);
    deepEqual(pinners.map((p) => p.id), [pipe.entity.id, "q/user"]);
    await refuses(svc.discard(ctx, "lib/where", 1), "template.in_use", 409, {
      template_id: "lib/where",
      version: 1,
      pinned_by_summary: "pipeline team/daily v1, template q/user v1",
    });
    await refuses(svc.deleteEntity(ctx, "lib/where"), "template.in_use", 409);
    // A draft that is pinned cannot be purged either.
    const draft = await svc.update(ctx, lib.body_hash, sql("lib/where", "WHERE 2 = 2"));
    await db.transaction((tx) =>
      recordPins(tx, { kind: "pipeline", id: pipe.entity.id, version: 1 }, [
        { template_id: libId, version: 2 },
      ])
    );
    deepEqual(names(await pinnersOf(db, libId, 1)), ["template q/user v1"]);
    await refuses(svc.purgeDraft(ctx, "lib/where", draft.body_hash), "template.in_use", 409, {
      version: 2,
    });
    await refuses(svc.purgeVersion(ctx, "lib/where", 2), "template.in_use", 409);
    equal(
      await db.transaction((tx) =>
        dropPins(tx, { kind: "pipeline", id: pipe.entity.id, version: 1 })
      ),
      1,
    );
    await svc.purgeVersion(ctx, "lib/where", 2);
    // Purging the importer's draft (its sole version) drops its pins with it.
    await svc.purgeDraft(ctx, "q/user", user.body_hash);
    deepEqual(await pinnersOf(db, libId), []);
    const discarded = await svc.discard(ctx, "lib/where", 1);
    deepEqual([discarded.status, discarded.current_version], ["DISCARDED", null]);
    const restored = await svc.restore(ctx, "lib/where", 1);
    deepEqual([restored.status, restored.current_version], ["RELEASED", 1]);
  },
);

forEachStore("saves keep a draft's import pins in step with its content", async (db) => {
  const { svc, ctx, workspaceId } = await setup(db);
  await svc.create(ctx, sql("lib/a"));
  await svc.create(ctx, sql("lib/b"));
  const idOf = async (n: string) => (await svc.lifecycle.findByName(workspaceId, n))!.id;
  const pin = (id: string) => ({ id, version: 1, alias: id.slice(4) });
  const t = await svc.create(ctx, sql("q/t", "", { imports: [pin("lib/a")] }));
  deepEqual(names(await pinnersOf(db, await idOf("lib/a"))), ["template q/t v1"]);
  await svc.update(ctx, t.body_hash, sql("q/t", "", { imports: [pin("lib/b")] }));
  deepEqual(await pinnersOf(db, await idOf("lib/a")), []);
  deepEqual(names(await pinnersOf(db, await idOf("lib/b"))), ["template q/t v1"]);
});

forEachStore(
  "resolvePins() finds names in the workspace only, reporting the rest as missing",
  async (db) => {
    const { svc, ctx, other, workspaceId } = await setup(db);
    await svc.create(ctx, htmlTemplate("mail/w", "<p/>", "w"));
    await svc.create(other, sql("x/y"));
    const { resolved, missing } = await resolvePins(db, workspaceId, [
      { id: "mail/w", version: 1 },
      { id: "x/y", version: 1 },
      { id: "mail/w", version: 2 },
    ]);
    deepEqual(resolved.map((r) => [r.name, r.type, r.dialect, r.status]), [[
      "mail/w",
      "html",
      null,
      "DRAFT",
    ]]);
    deepEqual(missing, [{ id: "x/y", version: 1 }, { id: "mail/w", version: 2 }]);
  },
);
