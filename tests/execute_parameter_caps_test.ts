/**
 * Issue 11 item 5 over HTTP, on both stores: a list parameter at the cap runs (bound as one DuckDB
 * list in staging); one item more, or more values than an execution may bind in all, is refused
 * with `pipeline.execution.invalid_parameter_type` naming the cap; and an 8 MB body of a million
 * items is refused without the process growing (it grew to 2 GB and, at times, never recovered).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { DEFAULT_PARAMETER_CAPS } from "../src/pipelines/mod.ts";
import { PIPELINE_KIND, VersionLifecycle } from "../src/versions/mod.ts";
import type { JsonObject } from "../src/versions/types.ts";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { frames } from "./support/executions_fixtures.ts";
import { forEachServer } from "./support/servers.ts";
import { dql } from "./support/pipeline_body.ts";

const { maxListItems, maxValues } = DEFAULT_PARAMETER_CAPS;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

forEachServer(
  "list parameters: at the cap they run, past either cap they are refused by name",
  async (s, f) => {
    const pipelines = new VersionLifecycle({
      db: s.runtime.db,
      kind: PIPELINE_KIND,
      authoringEnabled: true,
    });
    const list = { type: "integer_list" };
    const body = {
      name: "caps/ids",
      schema_version: 1,
      parameters: { ids: list, more: list, most: list },
      nodes: [
        dql("count", {
          source: "tempdb",
          sql: "SELECT count(*)::BIGINT AS n FROM range(0, 50000) t(i) WHERE i IN (:ids)",
        }),
      ],
    };
    const id = (await pipelines.create({
      actor: f.users.author.principal,
      workspaceId: f.workspace.id,
    }, { name: body.name, body: body as unknown as JsonObject, attrs: {} })).entity.id;
    const h = await sessionHeaders(s.runtime, f.users.author, "acme");
    const execute = (parameters: Record<string, unknown>) =>
      s.fetch(`/api/v1/pipelines/${id}/execute`, {
        method: "POST",
        headers: { ...h, accept: "text/event-stream", "content-type": "application/json" },
        body: JSON.stringify({ parameters }),
      });
    const refused = async (parameters: Record<string, unknown>) => {
      const res = await execute(parameters);
      equal(res.status, 400);
      const envelope = await res.json();
      equal(envelope.error.code, "pipeline.execution.invalid_parameter_type");
      return envelope.error;
    };

    const atCap = await execute({ ids: range(maxListItems) });
    equal(atCap.status, 200);
    const events = checkEventOrder(await frames(atCap).rest(), { expectDataReady: true });
    deepEqual(events.get("data_ready")![0].data.rows, [[String(maxListItems)]]);

    const one = await refused({ ids: range(maxListItems + 1) });
    equal(one.details.field, "parameters.ids");
    equal(one.details.parameter, "ids");
    equal(one.details.setting, "service.executor.max-list-items");
    equal(one.details.max, maxListItems);
    ok(String(one.message).includes("parameters.ids"), one.message);

    const third = Math.floor(maxValues / 3) + 1;
    const all = await refused({ ids: range(third), more: range(third), most: range(third) });
    equal(all.details.field, "parameters");
    equal(all.details.setting, "service.executor.max-parameter-values");
    equal(all.details.max, maxValues);
    equal(all.details.parameter, undefined);

    // An 8 MB body (within the 10 MB body limit) of 1.1 million items, six times: refused each
    // time, and the process stays within a bound far below the gigabytes it reached.
    const huge = JSON.stringify({
      parameters: { ids: range(1_100_000).map((i) => 1_000_000 + i) },
    });
    ok(huge.length > 8_000_000 && huge.length < 10 * 1024 * 1024, `${huge.length} bytes`);
    const before = Deno.memoryUsage().rss;
    let peak = before;
    for (let i = 0; i < 6; i++) {
      const res = await s.fetch(`/api/v1/pipelines/${id}/execute`, {
        method: "POST",
        headers: { ...h, accept: "text/event-stream", "content-type": "application/json" },
        body: huge,
      });
      equal(res.status, 400);
      const envelope = await res.json();
      equal(envelope.error.details.max, maxListItems);
      peak = Math.max(peak, Deno.memoryUsage().rss);
    }
    const grown = (peak - before) / 1024 / 1024;
    console.error(`rss grew ${grown.toFixed(0)} MB over six refused 8 MB bodies`);
    ok(grown < 768, `rss grew ${grown.toFixed(0)} MB`);
  },
);
