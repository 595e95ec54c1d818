/**
 * Purging an executed draft (spec 2 §3.1: "deleted with its executions"; §4.1 entity delete) on
 * both stores over HTTP: the entity delete, the draft discard route and purge by version take the
 * draft's runs, their events and the child runs they started; released versions keep theirs; a
 * draft whose run is still RUNNING is refused; an Idempotency-Key retry of a purged run answers
 * 404 instead of following a run that no longer exists.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { EventFrame } from "../src/executions/event_order.ts";
import { type Json, json, type TestServer } from "./support/harness.ts";
import { frames } from "./support/executions_fixtures.ts";
import { bothStores, dql, P, pipe } from "./support/pipeline_client.ts";
import { audits } from "./support/refusals.ts";
import { expectError, type World } from "./support/template_client.ts";
import { eventually } from "./support/wait.ts";

const ENDLESS = "SELECT count(*) AS n FROM range(100000000000) AS r(a)";

function execute(s: TestServer, h: Record<string, string>, id: string, extra: Json = {}) {
  const { key, ...body } = extra;
  return s.fetch(`${P}/${id}/execute`, {
    method: "POST",
    headers: {
      accept: "text/event-stream",
      "content-type": "application/json",
      ...(key ? { "Idempotency-Key": String(key) } : {}),
      ...h,
    },
    body: JSON.stringify(body),
  });
}

/** Runs `id` to its end; answers its execution id and every frame. */
async function run(w: World, id: string, extra: Json = {}) {
  const res = await execute(w.s, w.h.author, id, extra);
  equal(res.status, 200, await res.clone().text());
  const seen: EventFrame[] = await frames(res).rest();
  equal(seen.at(-1)?.event, "data_ready", JSON.stringify(seen.at(-1)));
  return { executionId: String(seen[0].data.execution_id), frames: seen };
}

async function stored(w: World, executionId: string) {
  const rec = await w.req("GET", `/api/v1/executions/${executionId}`, w.h.author);
  const events = await w.s.runtime.db.first<{ n: number }>(
    "SELECT count(*) AS n FROM execution_events WHERE execution_id = $1",
    [executionId],
  );
  return { status: rec.status, events: Number(events!.n) };
}

const gone = { status: 404, events: 0 };

async function create(w: World, body: Json) {
  const r = await w.req("POST", P, w.h.author, body);
  equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data as Json;
}

async function release(w: World, p: Json) {
  const r = await w.req("POST", `${P}/${p.id}/release`, w.h.promoter, undefined, p.body_hash);
  equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data as Json;
}

bothStores(
  "issue 22 finding 5: deleting an executed draft pipeline purges it with its runs, their events and child runs",
  async (withWorld) => {
    await withWorld(async (w) => {
      const child = await create(w, pipe("runs/child"));
      await release(w, child);
      const parent = await create(w, {
        name: "runs/parent",
        nodes: [{ id: "c", type: "PIPELINE", pipeline: { id: child.id, version: 1 } }],
      });
      // Two runs of the draft, each starting a child run of the released child pipeline.
      const runs = [await run(w, parent.id), await run(w, parent.id)];
      const childRuns = runs.map((r) =>
        String(r.frames.find((f) => f.event === "node_completed")!.data.child_execution_id)
      );
      const purgeable = [...runs.map((r) => r.executionId), ...childRuns];
      const ownChildRun = await run(w, child.id);
      for (const id of purgeable) equal((await stored(w, id)).status, 200, id);

      const del = await w.req("DELETE", `${P}/${parent.id}`, w.h.author);
      equal(del.status, 200, JSON.stringify(del.body));
      deepEqual(del.body.data, {
        purged: true,
        exclusive_draft_templates: [],
        exclusive_draft_templates_purged: false,
      });
      expectError(await w.req("GET", `${P}/${parent.id}`, w.h.author), 404, "pipeline.not_found");
      for (const id of purgeable) deepEqual(await stored(w, id), gone, id);
      // The child pipeline's own run is its history, not the parent's.
      const kept = await stored(w, ownChildRun.executionId);
      equal(kept.status, 200);
      const history = await w.req("GET", `/api/v1/executions?pipeline_id=${child.id}`, w.h.author);
      deepEqual(
        history.body.data.items.map((r: Json) => r.execution_id),
        [ownChildRun.executionId],
      );
      // The audit row of the delete says how many runs went with it.
      const [deleted] = await audits(w.s.runtime.db, "pipeline.deleted");
      equal(deleted.details.executions_purged, 4);
    });
  },
);

bothStores(
  "issue 22 finding 5: the entity delete takes its runs and its exclusive draft templates together",
  async (withWorld) => {
    await withWorld(async (w) => {
      const t = await w.req("POST", "/api/v1/templates", w.h.author, {
        id: "runs/only",
        dialect: "DUCKDB",
        display_name: "only",
        body: "SELECT 42 AS answer",
      });
      equal(t.status, 201, JSON.stringify(t.body));
      const p = await create(w, {
        name: "runs/templated",
        nodes: [{
          id: "a",
          type: "DQL",
          source: "tempdb",
          template: { id: "runs/only", version: 1 },
        }],
      });
      const ran = await run(w, p.id);
      const del = await w.req(
        "DELETE",
        `${P}/${p.id}?include_exclusive_draft_templates=true`,
        w.h.author,
      );
      deepEqual(del.body.data, {
        purged: true,
        exclusive_draft_templates: ["runs/only"],
        exclusive_draft_templates_purged: true,
      });
      deepEqual(await stored(w, ran.executionId), gone);
      expectError(
        await w.req("GET", "/api/v1/templates?name=runs/only", w.h.author),
        404,
        "template.not_found",
      );
    });
  },
);

bothStores(
  "issue 22 finding 5: a purged draft takes its own runs; released versions keep theirs",
  async (withWorld) => {
    await withWorld(async (w) => {
      const p = await create(w, pipe("runs/versions"));
      const v1 = await release(w, p);
      const releasedRun = await run(w, p.id);
      // A new draft over release 1, told apart by its description.
      const saveDraft = (description: string) =>
        w.req(
          "PUT",
          `${P}/${p.id}`,
          w.h.author,
          pipe("runs/versions", { description }),
          v1.body_hash,
        );
      const draft = await saveDraft("two");
      equal(draft.body.data.version, 2);
      const draftRun = await run(w, p.id);
      const discard = await w.req(
        "POST",
        `${P}/${p.id}/draft/discard`,
        w.h.author,
        undefined,
        draft.body.data.body_hash,
      );
      equal(discard.status, 204, JSON.stringify(discard.body));
      deepEqual(await stored(w, draftRun.executionId), gone);
      equal((await stored(w, releasedRun.executionId)).status, 200);

      // Number 2 returns to the pool: the next draft's runs are its own, and purge by version
      // takes them too.
      const again = await saveDraft("two again");
      equal(again.body.data.version, 2);
      const secondDraftRun = await run(w, p.id);
      equal((await w.req("DELETE", `${P}/${p.id}/versions/2`, w.h.author)).status, 204);
      deepEqual(await stored(w, secondDraftRun.executionId), gone);
      const history = await w.req("GET", `/api/v1/executions?pipeline_id=${p.id}`, w.h.author);
      deepEqual(history.body.data.items.map((r: Json) => [r.execution_id, r.pipeline_version]), [
        [releasedRun.executionId, 1],
      ]);
      const purged = await audits(w.s.runtime.db, "pipeline.version.purged");
      deepEqual(purged.map((a) => a.details.executions_purged), [1, 1]);
    });
  },
);

bothStores(
  "issue 22 finding 5: a draft is not purged while its run is running",
  async (withWorld) => {
    await withWorld(async (w) => {
      const p = await create(w, {
        name: "runs/endless",
        nodes: [dql({ sql: ENDLESS, source: "tempdb" })],
      });
      const res = await execute(w.s, w.h.author, p.id);
      equal(res.status, 200);
      const stream = frames(res);
      const started = await stream.next();
      const executionId = String(started.data.execution_id);

      const refused = expectError(
        await w.req("DELETE", `${P}/${p.id}`, w.h.author),
        409,
        "pipeline.version.running",
      );
      deepEqual([refused.pipeline_id, refused.version, refused.running], [p.id, 1, 1]);
      equal((await w.req("GET", `${P}/${p.id}`, w.h.author)).status, 200);
      equal((await w.req("GET", `/api/v1/executions/${executionId}`, w.h.author)).status, 200);

      equal(
        (await w.req("DELETE", `/api/v1/executions/${executionId}`, w.h.author)).status,
        204,
      );
      equal((await stream.rest()).at(-1)?.event, "execution_aborted");
      await eventually(async () => {
        const r = await w.req("GET", `/api/v1/executions/${executionId}`, w.h.author);
        return r.body.data.status === "ABORTED";
      });
      equal((await w.req("DELETE", `${P}/${p.id}`, w.h.author)).status, 200);
      deepEqual(await stored(w, executionId), gone);
    });
  },
);

bothStores(
  "issue 22 finding 5: an Idempotency-Key retry of a purged run answers 404, not a stream that never ends",
  async (withWorld) => {
    await withWorld(async (w) => {
      const p = await create(w, pipe("runs/keyed"));
      const first = await run(w, p.id, { key: "k-1" });
      // A retry before the purge replays the run.
      const replay = await run(w, p.id, { key: "k-1" });
      equal(replay.executionId, first.executionId);

      equal((await w.req("DELETE", `${P}/${p.id}`, w.h.author)).status, 200);
      const retry = await execute(w.s, w.h.author, p.id, { key: "k-1" });
      match(retry.headers.get("content-type") ?? "", /^application\/json/);
      const body = await json(retry);
      expectError({ status: retry.status, body }, 404, "result.execution_not_found");
      equal(body.error.details.execution_id, first.executionId);
    });
  },
);
