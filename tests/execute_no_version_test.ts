/**
 * Executing a pipeline with nothing to run (spec 2 §4.3): an exact version that never existed,
 * one whose number went back to the pool with a purged draft, and a pipeline whose only release
 * was discarded (no draft, no current version) all answer 404 `pipeline.execution.not_found`
 * with `details.pipeline_version`, before any stream opens and without an execution record.
 * On both stores, through the real executor.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { bothStores, P, pipe } from "./support/pipeline_client.ts";
import { expectError } from "./support/template_client.ts";
import { json } from "./support/harness.ts";

bothStores(
  "execute answers 404 pipeline.execution.not_found when no version can run",
  async (withWorld) => {
    await withWorld(async ({ s, h, req }) => {
      const created = await req("POST", P, h.author, pipe("runs/nothing"));
      equal(created.status, 201, JSON.stringify(created.body));
      const p = created.body.data;
      const execute = async (body: Record<string, unknown>) => {
        const res = await s.fetch(`${P}/${p.id}/execute`, {
          method: "POST",
          headers: {
            accept: "text/event-stream",
            "content-type": "application/json",
            ...h.author,
          },
          body: JSON.stringify(body),
        });
        // Refused before streaming: the error envelope, not an event stream.
        match(res.headers.get("content-type") ?? "", /^application\/json/);
        return { status: res.status, body: await json(res) };
      };

      // An exact version that never existed.
      equal(
        expectError(await execute({ version: 7 }), 404, "pipeline.execution.not_found")
          .pipeline_version,
        7,
      );

      // Release 1, then a draft 2 that is purged: its number returns to the pool.
      const rel = await req("POST", `${P}/${p.id}/release`, h.promoter, undefined, p.body_hash);
      equal(rel.status, 200, JSON.stringify(rel.body));
      const draft = await req(
        "PUT",
        `${P}/${p.id}`,
        h.author,
        pipe("runs/nothing", { description: "draft two" }),
        rel.body.data.body_hash,
      );
      deepEqual([draft.body.data.version, draft.body.data.status], [2, "DRAFT"]);
      const purged = await req(
        "POST",
        `${P}/${p.id}/draft/discard`,
        h.author,
        undefined,
        draft.body.data.body_hash,
      );
      equal(purged.status, 204);
      equal(
        expectError(await execute({ version: 2 }), 404, "pipeline.execution.not_found")
          .pipeline_version,
        2,
      );

      // Discard the only release: no draft and no current version remain to run.
      const discarded = await req("POST", `${P}/${p.id}/versions/1/discard`, h.author);
      equal(discarded.status, 200, JSON.stringify(discarded.body));
      equal(discarded.body.data.current_version, null);
      const none = expectError(await execute({}), 404, "pipeline.execution.not_found");
      equal(none.pipeline_version, null);
      expectError(
        await execute({ parameters: {} }),
        404,
        "pipeline.execution.not_found",
      );

      // Nothing was recorded for any of the refusals.
      const list = await req("GET", `/api/v1/executions?pipeline_id=${p.id}`, h.author);
      equal(list.status, 200);
      deepEqual([list.body.data.items, list.body.data.pagination.total], [[], 0]);
    });
  },
);
