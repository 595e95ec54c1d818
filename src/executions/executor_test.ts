import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { forEachCrmWorld, forEachWorld } from "../../tests/support/executor_world.ts";
import {
  duckdbSource,
  pipeline,
  RecordingSink,
  request,
  run,
  sqliteSource,
  SUCCESS_STATES,
} from "./executor_fixtures.ts";
import { DatabaseSync } from "node:sqlite";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

forEachCrmWorld(
  "a DQL from SQLite reaches the caller: stored result, data_ready, record",
  async (w) => {
    const id = await pipeline(w, [
      dql("read", { source: "crm", sql: "SELECT id, name FROM people ORDER BY id" }),
    ]);
    const sink = new RecordingSink();
    const { byType, record, frames } = await run(w, id, { sink, expectDataReady: true });
    equal(record.status, "SUCCESS");
    equal(record.draft_run, true);
    equal(record.result_row_count, 3);
    const ready = byType.get("data_ready")![0].data;
    deepEqual(ready.rows, [[1, "Ada"], [2, "Bo"], [3, "Cy"]]);
    deepEqual(ready.schema.map((c: { name: string }) => c.name), ["id", "name"]);
    equal(ready.total_rows, 3);
    equal(ready.has_more, false);
    equal(ready.result_url, `/api/v1/executions/${record.execution_id}/result`);
    const page = await w.results.page(record.execution_id, 1, 5);
    deepEqual(page!.rows, [[2, "Bo"], [3, "Cy"]]);
    // The sink saw the same frames, in the same order, between started and finished.
    deepEqual(sink.frames(record.execution_id), frames);
    equal(sink.calls[0].kind, "started");
    equal(sink.calls.at(-1)!.kind, "finished");
    const samples = byType.get("node_progress")!.map((f) => f.data);
    deepEqual(samples.map((s) => s.state), SUCCESS_STATES);
    const last = samples.at(-1)!;
    equal(last.operation, "materialize");
    deepEqual(last.destination, { kind: "caller" });
    equal(last.rows_fetched, 3);
    equal(last.rows_written, 3);
    for (const f of frames) equal(f.data.correlation_id, record.correlation_id);
    deepEqual(record.node_stats!.map((s) => [s.node_id, s.status, s.rows_out]), [
      ["read", "SUCCESS", 3],
    ]);
  },
);

forEachCrmWorld("a join of SQLite and DuckDB staged in tempdb, fed by a calculator", async (w) => {
  await duckdbSource(w, "geo");
  const id = await pipeline(w, [
    {
      id: "pick",
      type: "CALCULATOR",
      calculator: {
        name: "coalesce",
        inputs: { values: [{ param: "team" }, "red"] },
        writes: { value: "chosen" },
      },
    },
    staged("people", "crm", "SELECT id, name, team FROM people WHERE team = :chosen"),
    staged("teams", "geo", "SELECT team, city FROM teams"),
    dql("joined", {
      source: "tempdb",
      depends_on: ["people", "teams"],
      sql: "SELECT p.name, t.city FROM people p JOIN teams t USING (team) ORDER BY p.id",
    }),
  ], { parameters: { team: { type: "string" } } });
  const { byType, record } = await run(w, id, { expectDataReady: true });
  equal(record.status, "SUCCESS", JSON.stringify(record.error));
  deepEqual(byType.get("data_ready")![0].data.rows, [["Ada", "Oslo"], ["Cy", "Oslo"]]);
  const ops = new Map(
    byType.get("node_progress")!.map((f) => [f.data.node_id, f.data.operation]),
  );
  equal(ops.get("people"), "stage");
  equal(ops.get("joined"), "materialize");
  ok(!ops.has("pick"), "calculators emit no samples");
  const progress = byType.get("node_progress")!.filter((f) =>
    f.data.node_id === "people" && f.data.state === "completed"
  )[0].data;
  deepEqual(progress.destination, { kind: "tempdb", table: "people" });
  equal(progress.rows_written, 2);
});

forEachCrmWorld(
  "prepare refuses an unknown version and missing parameters before streaming",
  async (w) => {
    const id = await pipeline(w, [
      dql("read", { source: "crm", sql: "SELECT * FROM people WHERE team = :team" }),
    ], { parameters: { team: { type: "string", required: true } } });
    const executor = w.executor();
    await rejects(executor.prepare(request(w, id, { version: 9 })), (e: AppError) => {
      equal(e.code, "pipeline.execution.not_found");
      equal(e.status, 404);
      equal(e.details.pipeline_version, 9);
      return true;
    });
    await rejects(executor.prepare(request(w, id)), (e: AppError) => {
      equal(e.code, "pipeline.execution.parameter_required");
      equal(e.status, 400);
      return true;
    });
    const ok1 = await executor.prepare(
      request(w, id, { version: 1, parameters: { team: "red" } }),
    );
    equal(ok1.version, 1);
  },
);

forEachCrmWorld(
  "bad SQL fails the node; one failure record in node_failed, pipeline_failed, record",
  async (w) => {
    const id = await pipeline(w, [
      staged("ok", "crm", "SELECT 1 AS x", { table: "x" }),
      dql("bad", {
        source: "crm",
        depends_on: ["ok"],
        sql: "SELECT nope FROM missing WHERE id = :id",
      }),
    ], { parameters: { id: { type: "integer", default: 7 } } });
    const { byType, record } = await run(w, id, { expectDataReady: true });
    equal(record.status, "FAILED");
    equal(record.failed_node_id, "bad");
    const nodeError = byType.get("node_failed")![0].data.error;
    const pipelineError = byType.get("pipeline_failed")![0].data.error;
    deepEqual(nodeError, pipelineError);
    deepEqual(record.error, nodeError);
    equal(nodeError.code, "pipeline.node.statement_failed");
    equal(nodeError.sql, "SELECT nope FROM missing WHERE id = :id");
    equal(nodeError.node.datasource, "crm");
    ok(
      !JSON.stringify(nodeError).includes('"7"') && !JSON.stringify(nodeError.sql).includes("7"),
    );
    const terminal = byType.get("node_progress")!.filter((f) => f.data.node_id === "bad").at(-1)!;
    equal(terminal.data.state, "failed");
    deepEqual(record.node_stats!.map((s) => [s.node_id, s.status, s.error_code ?? null]), [
      ["ok", "SUCCESS", null],
      ["bad", "FAILED", "pipeline.node.statement_failed"],
    ]);
    // Structured detail leaves node, sql and exception out.
    const r2 = await run(w, id, { options: { errorDetail: "structured" } });
    equal(r2.record.error!.node, undefined);
    equal(r2.record.error!.sql, undefined);
    equal(r2.record.error!.exception, undefined);
  },
);

forEachWorld("writeback commits with evidence; a failing one rolls back", async (w) => {
  const path = sqliteSource(w, "crm");
  const id = await pipeline(w, [
    dql("copy", {
      source: "crm",
      sql: "SELECT id, name FROM people WHERE team = 'red'",
      output: { target: "datasource", datasource: "crm", table: "reds", mode: "create" },
    }),
  ]);
  const good = await run(w, id, { expectDataReady: false });
  equal(good.record.status, "SUCCESS", JSON.stringify(good.record.error));
  const end = good.byType.get("node_progress")!.at(-1)!.data;
  equal(end.state, "completed");
  equal(end.committed, true);
  equal(end.operation, "writeback");
  equal(end.rows_written, 2);
  const check = new DatabaseSync(path);
  deepEqual(check.prepare("SELECT count(*) AS n FROM reds").get(), { n: 2 });
  check.close();

  const failing = await pipeline(w, [
    {
      id: "change",
      type: "DML",
      source: "crm",
      sql: "UPDATE people SET team = 'green'; ",
    },
    {
      id: "broken",
      type: "DML",
      source: "crm",
      depends_on: ["change"],
      sql: "INSERT INTO people (id, name) VALUES (1, 'duplicate')",
    },
  ]);
  const bad = await run(w, failing, { expectDataReady: false });
  equal(bad.record.status, "FAILED");
  // DML and DDL nodes deliver no rows anywhere (DECISIONS.md "omitted output").
  for (const sample of bad.byType.get("node_progress")!) {
    deepEqual(sample.data.destination, { kind: "none" });
  }
  const broken = bad.byType.get("node_progress")!.filter((f) => f.data.node_id === "broken").at(
    -1,
  )!;
  equal(broken.data.state, "failed");
  equal(broken.data.committed, false);
  equal(broken.data.rolled_back, true);
  // A readonly datasource refuses every write-shaped node.
  sqliteSource(w, "locked", true);
  const refused = await pipeline(w, [
    { id: "w", type: "DDL", source: "locked", sql: "CREATE TABLE t (x INTEGER)" },
  ]);
  const r = await run(w, refused);
  equal(r.record.error!.code, "pipeline.node.readonly_datasource");
});

forEachCrmWorld(
  "a DQL renders its pinned template (by id or name) with imports; values stay bound",
  async (w) => {
    const made = async (name: string, body: string, imports: unknown[] = []) => {
      const saved = await w.templates.create(w.ctx, {
        name,
        body: { id: name, type: "sql", dialect: "SQLITE", imports, body } as never,
        attrs: { type: "sql", dialect: "SQLITE", display_name: name, description: null },
      });
      return saved.entity.id;
    };
    const filterId = await made("sql/team_filter", "team = :team");
    const reportName = "sql/team_report";
    await made(
      reportName,
      "SELECT name FROM people WHERE {% render 'filter' %}{% if params.sorted %} ORDER BY name DESC{% endif %}",
      [{ alias: "filter", id: filterId, version: 1 }],
    );
    const id = await pipeline(w, [
      dql("read", { source: "crm", template: { id: reportName, version: 1 } }),
    ], {
      parameters: {
        team: { type: "string", default: "red" },
        sorted: { type: "boolean", default: true },
      },
    });
    const { byType, record } = await run(w, id, { expectDataReady: true });
    equal(record.status, "SUCCESS", JSON.stringify(record.error));
    deepEqual(byType.get("data_ready")![0].data.rows, [["Cy"], ["Ada"]]);
    // A failing template statement names the template and keeps the placeholder in `sql`.
    const broken = await made(
      "sql/broken",
      "SELECT missing_column FROM people WHERE team = :team",
    );
    const bad = await pipeline(w, [
      dql("read", { source: "crm", template: { id: broken, version: 1 } }),
    ], { parameters: { team: { type: "string", default: "red" } } });
    const r = await run(w, bad);
    equal(r.record.error!.sql, "SELECT missing_column FROM people WHERE team = :team");
    equal(r.record.error!.node!.template, broken);
    equal(r.record.error!.node!.template_version, 1);
  },
);

forEachCrmWorld(
  "a sink that breaks fails the execution; live readers still get a complete stream",
  async (w) => {
    const id = await pipeline(w, [
      dql("read", { source: "crm", sql: "SELECT id FROM people" }),
    ]);
    class BrokenSink extends RecordingSink {
      override event(executionId: string, frame: Parameters<RecordingSink["event"]>[1]) {
        if (frame.event === "node_progress") return Promise.reject(new Error("log store down"));
        return super.event(executionId, frame);
      }
    }
    const sink = new BrokenSink();
    const { record } = await run(w, id, { sink: sink, expectDataReady: true });
    equal(record.status, "FAILED");
    equal(record.error!.exception!.message, "log store down");
    equal(sink.calls.at(-1)!.kind, "finished");
    equal((sink.calls.at(-1)!.value as typeof record).status, "FAILED");
  },
);
