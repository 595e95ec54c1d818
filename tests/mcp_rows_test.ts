/**
 * Bounded results (DECISIONS.md "MCP tool arguments and results"): a pipeline delivering
 * 1,000,000 rows answers pipelines_execute with a first page inside both caps — at most
 * `service.mcp.max-rows` rows and `service.mcp.max-chars` characters of row JSON — marked
 * truncated with a cursor, and executions_get_result pages on from it; wide rows are cut by the
 * character cap before the row cap. Once per store, each on one revision.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { STORE_KINDS } from "./support/stores.ts";
import { skipUnless } from "./support/services.ts";
import { ERAS, type Json, withAuthorClient } from "./support/mcp_client.ts";
import { dql } from "./support/pipeline_body.ts";

const MILLION = [
  dql("rows", {
    source: "tempdb",
    sql: "SELECT range AS n, 'row ' || range AS label FROM range(1000000) ORDER BY range",
  }),
];
const WIDE = [
  dql("wide", {
    source: "tempdb",
    sql: "SELECT range AS n, repeat('x', 1000) AS pad FROM range(500)",
  }),
];

const chars = (rows: unknown[][]) => JSON.stringify(rows).length;

for (const [i, store] of STORE_KINDS.entries()) {
  const era = ERAS[i % ERAS.length];
  Deno.test({
    name: `[${store}] [${era}] a 1,000,000-row result comes back truncated within the caps`,
    ignore: store === "postgres" && skipUnless("postgres"),
    fn: () =>
      withAuthorClient({ store }, era, async (c) => {
        const million = await c.call("pipelines_create", {
          name: "team/million",
          nodes: MILLION,
        });
        const run = await c.call("pipelines_execute", { id: million.id });
        equal(run.execution.status, "SUCCESS");
        equal(run.execution.result_row_count, 1_000_000);
        const first = run.result as Json;
        deepEqual(first.columns.map((col: Json) => col.name), ["n", "label"]);
        // The default caps: 200 rows, 20,000 characters; these rows are small, so rows bind.
        equal(first.row_count, 200);
        equal(first.rows.length, 200);
        ok(chars(first.rows) <= 20_000, `${chars(first.rows)} characters`);
        equal(first.truncated, true);
        deepEqual(first.rows[0], [0, "row 0"]);
        deepEqual(first.rows[199], [199, "row 199"]);
        ok(first.next_cursor);
        const second = await c.call("executions_get_result", { cursor: first.next_cursor });
        deepEqual(second.rows[0], [200, "row 200"]);
        equal(second.row_count, 200);
        ok(second.next_cursor && second.next_cursor !== first.next_cursor);
        ok(typeof second.elapsed_ms === "number");

        // Wide rows: the character cap binds first, and a page never exceeds it.
        const wide = await c.call("pipelines_create", { name: "team/wide", nodes: WIDE });
        const w = (await c.call("pipelines_execute", { id: wide.id })).result as Json;
        ok(w.row_count > 0 && w.row_count < 200, `${w.row_count} rows`);
        ok(chars(w.rows) <= 20_000, `${chars(w.rows)} characters`);
        equal(w.truncated, true);
        const next = await c.call("executions_get_result", { cursor: w.next_cursor });
        equal(next.rows[0][0], w.row_count);
      }),
  });
}
