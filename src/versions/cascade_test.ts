import { deepEqual, equal } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { TEMPLATE_KIND } from "./kinds.ts";
import { VersionLifecycle } from "./service.ts";
import type { LifecycleHook } from "./types.ts";
import { attrsOf, bodyOf, createOne, refusingHook, shape, worlds } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

forEachStore(
  "a release hook cascades another kind's release in the same transaction",
  async (db) => {
    const [p] = await worlds(db);
    // Templates in the pipeline's workspace, joined to its transaction through ctx.tx.
    const tName = "lib/daily";
    const tLife = new VersionLifecycle({ db, kind: TEMPLATE_KIND, authoringEnabled: true });
    const t = await tLife.create(p.asAlice, {
      name: tName,
      body: bodyOf(TEMPLATE_KIND, tName, 1),
      attrs: attrsOf(TEMPLATE_KIND),
    });
    const pipeline = await createOne(p);
    const cascade: LifecycleHook = async (tx, ctx) => {
      const released = await tLife.release({ ...p.asBob, tx }, t.entity.id, t.version.body_hash, {
        auditDetails: {
          cascade_from_pipeline_id: ctx.entity.id,
          cascade_from_version: ctx.version.version,
        },
      });
      return { templates_released: [{ id: tName, version: released.version.version }] };
    };
    const checksFail = refusingHook("a later check refused");

    // A refusal after the cascade rolls the template's release back too.
    await refuses(
      p.life.release(p.asBob, pipeline.id, pipeline.hash, { beforeRelease: [cascade, checksFail] }),
      "pipeline.version.not_eligible",
      409,
    );
    deepEqual(await shape({ ...p, k: TEMPLATE_KIND, life: tLife }, t.entity.id), ["1:DRAFT"]);
    equal((await audits(db, "template.version.released")).length, 0);

    const out = await p.life.release(p.asBob, pipeline.id, pipeline.hash, {
      beforeRelease: [cascade],
    });
    deepEqual(out.extras, { templates_released: [{ id: tName, version: 1 }] });
    deepEqual(await shape({ ...p, k: TEMPLATE_KIND, life: tLife }, t.entity.id), ["1:RELEASED"]);
    const [tRow] = await audits(db, "template.version.released");
    deepEqual(
      [tRow.details.cascade_from_pipeline_id, tRow.details.cascade_from_version],
      [pipeline.id, 1],
    );
    const [pRow] = await audits(db, "pipeline.version.released");
    deepEqual(pRow.details.templates_released, [{ id: tName, version: 1 }]);
  },
);
