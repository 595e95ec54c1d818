/**
 * The pipeline, execution, calculator and docs tools over real HTTP with the official SDK client,
 * on both stores and both revisions: each one succeeding as an author's key would use it, the run
 * recorded as triggered via MCP with a progress notification per node, result pages by cursor
 * under the caps, a run outliving its wait (RUNNING) and cancelled by executions_cancel, and the
 * audit rows (`mcp.tool.called` for every call, `mcp.tool.write` for every mutating one).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { audits } from "./support/refusals.ts";
import {
  connect,
  ERAS,
  type Json,
  keyHeaders,
  NODES,
  SLOW,
  withAuthorClient,
} from "./support/mcp_client.ts";
import { eventually } from "./support/wait.ts";

const WRITE_TOOLS = [
  "pipelines_create",
  "pipelines_update",
  "pipelines_execute",
  "pipelines_execute_node",
  "pipelines_run_checks",
  "executions_cancel",
];

for (const [i, era] of ERAS.entries()) {
  forEachStoreKind(
    `[${era}] every pipeline, execution, calculator and docs tool succeeds`,
    async (store) => {
      // Two rows a page, so five rows page by cursor.
      const s = await startTestServer({ store, env: { SERVICE_MCP_MAX_ROWS: "2" } });
      try {
        const f = await seedRoles(s.runtime);
        const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
        const c = await connect(s, era, keyHeaders(key, i === 0 ? "bearer" : "svc"));
        const calls: string[] = [];
        const call = (
          name: string,
          args: Json = {},
          options?: { onprogress?: (p: Json) => void },
        ) => {
          calls.push(name);
          return c.call(name, args, options);
        };
        try {
          const created = await call("pipelines_create", { name: "team/mcp", nodes: NODES });
          deepEqual([created.name, created.status, created.version], ["team/mcp", "DRAFT", 1]);
          const listed = await call("pipelines_list", { q: "mcp" });
          deepEqual(listed.items.map((p: Json) => p.id), [created.id]);
          equal(listed.pagination.total, 1);
          const got = await call("pipelines_get", { id: created.id });
          equal(got.body_hash, created.body_hash);
          const updated = await call("pipelines_update", {
            id: created.id,
            if_match: got.body_hash,
            name: "team/mcp",
            description: "tens of five",
            nodes: NODES,
          });
          equal(updated.description, "tens of five");
          ok(updated.body_hash !== got.body_hash);

          const progress: Json[] = [];
          const run = await call("pipelines_execute", { id: created.id }, {
            onprogress: (p) => progress.push(p),
          });
          deepEqual(
            [run.execution.status, run.execution.triggered_via, run.execution.pipeline_id],
            ["SUCCESS", "MCP", created.id],
          );
          deepEqual(run.result.columns, [{ name: "m", type: "integer" }]);
          deepEqual([run.result.rows, run.result.row_count, run.result.truncated], [
            [[0], [10]],
            2,
            true,
          ]);
          // One notification per node event: three nodes started and completed, in order.
          deepEqual(progress.map((p) => p.progress), [1, 2, 3, 4, 5, 6]);
          ok(progress.some((p) => p.message === "node total completed"), JSON.stringify(progress));

          const pages = [run.result.rows];
          let cursor = run.result.next_cursor;
          while (cursor) {
            const page = await call("executions_get_result", { cursor });
            pages.push(page.rows);
            cursor = page.next_cursor;
          }
          deepEqual(pages, [[[0], [10]], [[20], [30]], [[40]]]);
          const first = await call("executions_get_result", {
            execution_id: run.execution.execution_id,
          });
          deepEqual(first.rows, [[0], [10]]);

          const node = await call("pipelines_execute_node", { id: created.id, node: "tens" });
          deepEqual([node.execution.status, node.result.rows], ["SUCCESS", [[0], [10]]]);
          const record = (await s.runtime.executions.repo.get(node.execution.execution_id))!.record;
          equal(record.triggered_via, "MCP");

          const checks = await call("pipelines_run_checks", { id: created.id, version: 1 });
          deepEqual(checks, { version: 1, runs: [] });

          const history = await call("executions_list", { pipeline_id: created.id });
          equal(history.pagination.total, 2);
          ok(history.items.every((e: Json) => e.triggered_via === "MCP" && !("result_url" in e)));
          const one = await call("executions_get", { execution_id: run.execution.execution_id });
          deepEqual([one.status, one.result_row_count], ["SUCCESS", 5]);
          ok(String(one.result_url).endsWith(`/api/v1/executions/${one.execution_id}/result`));

          // A run that outlives its wait answers RUNNING; executions_cancel stops it.
          const slow = await call("pipelines_create", { name: "team/slow", nodes: SLOW });
          const waited = await call("pipelines_execute", { id: slow.id, timeout_seconds: 1 });
          deepEqual([waited.execution.status, waited.result], ["RUNNING", null]);
          const id = waited.execution.execution_id;
          deepEqual(await call("executions_cancel", { execution_id: id }), {
            execution_id: id,
            cancel_requested: true,
          });
          await eventually(
            async () => (await call("executions_get", { execution_id: id })).status === "ABORTED",
            20_000,
          );

          const calculators = await call("calculators_list");
          ok(calculators.items.some((x: Json) => x.name === "date_range"));
          equal((await call("calculators_get", { name: "date_range" })).name, "date_range");
          const docs = await call("docs_list");
          ok(docs.items.some((d: Json) => d.id === "mcp"));
          const page = await call("docs_get", { id: "mcp" });
          ok(page.markdown.startsWith("# The tool endpoint"));
        } finally {
          await c.close();
        }

        // Every call audited once with its tool and outcome; every mutating one also as a write.
        const called = await audits(s.runtime.db, "mcp.tool.called");
        const mine = called.filter((r) => r.user_id === f.users.author.id);
        deepEqual(mine.map((r) => r.details.tool).sort(), [...calls].sort());
        ok(mine.every((r) => r.details.outcome === "ok" && typeof r.details.key_id === "string"));
        const writes = await audits(s.runtime.db, "mcp.tool.write");
        deepEqual(
          writes.map((r) => r.details.tool).sort(),
          calls.filter((n) => WRITE_TOOLS.includes(n)).sort(),
        );
        ok(writes.every((r) => r.workspace_id === f.workspace.id));
      } finally {
        await s.close();
      }
    },
  );
}

for (const era of ERAS) {
  forEachStoreKind(
    `[${era}] abandoning pipelines_execute does not cancel the run; executions_cancel does`,
    async (store) => {
      await withAuthorClient({ store }, era, async (c) => {
        const slow = await c.call("pipelines_create", { name: "team/slow", nodes: SLOW });
        // The client gives up as soon as the node has started.
        const abandon = new AbortController();
        const gaveUp = await c.client.callTool({
          name: "pipelines_execute",
          arguments: { id: slow.id },
        }, {
          signal: abandon.signal,
          onprogress: () => abandon.abort(),
        }).then(() => false, () => true);
        ok(gaveUp, "the abandoned call resolved");
        const running = await c.call("executions_list", { pipeline_id: slow.id });
        deepEqual(running.items.map((e: Json) => e.status), ["RUNNING"]);
        const id = running.items[0].execution_id;
        await c.call("executions_cancel", { execution_id: id });
        let record: Json = {};
        await eventually(async () => {
          record = await c.call("executions_get", { execution_id: id });
          return record.status === "ABORTED";
        }, 20_000);
        // Stopped by the cancel, not by the client leaving.
        equal(record.abort_reason, "cancelled");
      });
    },
  );
}
