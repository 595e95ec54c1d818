/**
 * Reading results through the tools (docs/mcp.md#results), with the official SDK client: the page
 * size a run asks for (`page_rows`) holds for every cursor after it and `limit` overrides it,
 * both clamped to `service.mcp.max-rows`; `result_ttl_seconds` sets the lifetime the record
 * reports, and past it the id and every cursor answer `result.expired` with the hint to run
 * again; a value longer than `service.mcp.max-chars` is reported with its full length and read
 * back whole in slices. Once per store, each on one revision.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { STORE_KINDS } from "./support/stores.ts";
import { skipUnless } from "./support/services.ts";
import { ERAS, type Json, withAuthorClient } from "./support/mcp_client.ts";
import { dql } from "./support/pipeline_body.ts";
import { eventually } from "./support/wait.ts";

const HUNDRED = [
  dql("rows", { source: "tempdb", sql: "SELECT range AS n FROM range(100) ORDER BY range" }),
];
/** One row whose `long` is 60,000 characters of digits, quotes and an accented letter. */
const PIECE = '0123456789"é';
const LONG = [
  dql("wide", {
    source: "tempdb",
    sql: `SELECT 1 AS id, repeat('${PIECE.replace("'", "''")}', 5000) AS long, 'tail' AS t`,
  }),
];

const env = {
  SERVICE_MCP_MAX_ROWS: "30",
  SERVICE_MCP_MAX_CHARS: "5000",
  SERVICE_RESULT_TTL_MIN_SECONDS: "1",
};

for (const [i, store] of STORE_KINDS.entries()) {
  const era = ERAS[i % ERAS.length];
  Deno.test({
    name: `[${store}] [${era}] page_rows and limit size the pages; every row is read once`,
    ignore: store === "postgres" && skipUnless("postgres"),
    fn: () =>
      withAuthorClient({ store, env }, era, async (c) => {
        const p = await c.call("pipelines_create", { name: "team/hundred", nodes: HUNDRED });
        const run = await c.call("pipelines_execute", { id: p.id, page_rows: 7 });
        equal(run.result.row_count, 7);
        const seen: number[] = run.result.rows.map((r: number[]) => r[0]);
        let cursor = run.result.next_cursor;
        let pages = 1;
        while (cursor) {
          const page = await c.call("executions_get_result", { cursor });
          ok(page.row_count <= 7, `page ${pages}: ${page.row_count} rows`);
          seen.push(...page.rows.map((r: number[]) => r[0]));
          cursor = page.next_cursor;
          pages++;
        }
        deepEqual(seen, Array.from({ length: 100 }, (_, n) => n));
        equal(pages, 15, "100 rows in pages of 7");

        // `limit` overrides, and neither goes past service.mcp.max-rows.
        const id = run.execution.execution_id;
        equal((await c.call("executions_get_result", { execution_id: id, limit: 3 })).row_count, 3);
        const big = await c.call("executions_get_result", { execution_id: id, limit: 1000 });
        equal(big.row_count, 30);
        const asked = await c.call("pipelines_execute", { id: p.id, page_rows: 500 });
        equal(asked.result.row_count, 30);
        const next = await c.call("executions_get_result", {
          cursor: run.result.next_cursor,
          limit: 20,
        });
        deepEqual([next.rows[0][0], next.row_count], [7, 20]);
      }),
  });

  Deno.test({
    name:
      `[${store}] [${era}] result_ttl_seconds sets the lifetime; past it result.expired says run again`,
    ignore: store === "postgres" && skipUnless("postgres"),
    fn: () =>
      withAuthorClient({ store, env }, era, async (c) => {
        const p = await c.call("pipelines_create", { name: "team/brief", nodes: HUNDRED });
        const kept = await c.call("pipelines_execute", { id: p.id, result_ttl_seconds: 600 });
        const life = Date.parse(kept.execution.result_expires_at) -
          Date.parse(kept.execution.completed_at);
        ok(Math.abs(life - 600_000) < 5_000, `kept ${life} ms`);
        const brief = await c.call("pipelines_execute", { id: p.id, result_ttl_seconds: 1 });
        const cursor = brief.result.next_cursor;
        const expired = await eventually(async () => {
          const r = await c.client.callTool({
            name: "executions_get_result",
            arguments: { cursor },
          });
          return r.isError ? (r.structuredContent as Json).error : null;
        }, { what: "the result to expire" });
        equal(expired.code, "result.expired");
        ok(expired.message.includes("run the pipeline again"), expired.message);
        ok(String(expired.details.hint).includes("pipelines_execute"));
        const byId = await c.refusal("executions_get_result", {
          execution_id: brief.execution.execution_id,
        });
        equal(byId.code, "result.expired");
        // The other result is still there.
        equal(
          (await c.call("executions_get_result", { cursor: kept.result.next_cursor })).row_count,
          30,
        );
      }),
  });

  Deno.test({
    name: `[${store}] [${era}] a value cut at max-chars is reported whole and read back in slices`,
    ignore: store === "postgres" && skipUnless("postgres"),
    fn: () =>
      withAuthorClient({ store, env }, era, async (c) => {
        const p = await c.call("pipelines_create", { name: "team/long", nodes: LONG });
        const run = await c.call("pipelines_execute", { id: p.id });
        const page = run.result;
        ok(JSON.stringify(page.rows).length <= 5000);
        equal(page.truncated, true);
        const [id, shown, tail] = page.rows[0];
        deepEqual([id, tail], [1, "tail"]);
        const full = PIECE.repeat(5000);
        equal(page.cut_cells.length, 1);
        const cut = page.cut_cells[0];
        deepEqual([cut.row, cut.column, cut.length], [0, "long", full.length]);
        equal(shown, full.slice(0, cut.kept) + "…");

        let text = full.slice(0, cut.kept);
        let cursor = cut.cursor;
        let slices = 0;
        while (cursor) {
          const slice = await c.call("executions_get_result", { cursor });
          deepEqual(slice.columns, [{ name: "long", type: "string" }]);
          equal(slice.cell.offset, text.length);
          deepEqual([slice.cell.column, slice.cell.length], ["long", full.length]);
          ok(JSON.stringify(slice.rows).length <= 5000);
          text += slice.rows[0][0];
          cursor = slice.next_cursor;
          equal(slice.truncated, cursor !== null);
          slices++;
        }
        equal(text, full, "the slices make the value whole");
        ok(slices >= 12, `${slices} slices`);
        // The row's page went on past the long value: the result had one row.
        equal(page.next_cursor, null);
      }),
  });
}
