/**
 * Each run-time failure code the executor emits (spec 2 §2.4, §3.2, §6), on embedded sources:
 * the code is asserted in `node_failed`, `pipeline_failed` and the record the durable sink
 * stored, and every stream (stored and live) passes the §6 ordering checker. Refusals before the
 * stream (parameter coercion) are answered by `prepare` with every defect listed.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { connectorConfig } from "../../tests/support/datasources.ts";
import { LakeConnector, openConnector } from "../datasources/mod.ts";
import type { AppError } from "../errors/mod.ts";
import { MemoryStore } from "../shared/mod.ts";
import { forEachCrmWorld, forEachWorld } from "../../tests/support/executor_world.ts";
import { addDatasource, pipeline, request, sqliteSource, type World } from "./executor_fixtures.ts";
import { ResultStore } from "./result_store.ts";
import { assertFailed } from "./stored_run_fixtures.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

async function template(w: World, name: string, body: string): Promise<string> {
  const saved = await w.templates.create(w.ctx, {
    name,
    body: { id: name, type: "sql", dialect: "SQLITE", imports: [], body } as never,
    attrs: { type: "sql", dialect: "SQLITE", display_name: name, description: null },
  });
  return saved.entity.id;
}

forEachCrmWorld(
  "datasource, statement, placeholder and readonly failures: one record streamed and stored",
  async (w, runs) => {
    sqliteSource(w, "locked", true);

    const missing = await pipeline(w, [
      dql("read", { source: "nowhere", sql: "SELECT 1" }),
    ]);
    const notFound = assertFailed(await runs.run(missing), "datasource.not_found", "read");
    equal(notFound.details.datasource, "nowhere");

    const bad = await pipeline(w, [
      dql("bad", { source: "crm", sql: "SELECT nope FROM people" }),
    ]);
    const statement = assertFailed(await runs.run(bad), "pipeline.node.statement_failed", "bad");
    equal(statement.details.dialect, "SQLITE");
    equal(statement.sql, "SELECT nope FROM people");

    // A placeholder no parameter binds: refused at bind time, nothing reaches the driver.
    const unbound = await pipeline(w, [
      dql("read", { source: "crm", sql: "SELECT * FROM people WHERE id = :ghost" }),
    ]);
    const ghost = assertFailed(
      await runs.run(unbound),
      "pipeline.execution.parameter_required",
      "read",
    );
    equal(ghost.details.parameter, "ghost");

    // The staging database refuses a value: text in a column SQLite declares DECIMAL.
    const ledger = new DatabaseSync(`${w.dir}/ledger.sqlite`);
    ledger.exec(
      "CREATE TABLE amounts (v DECIMAL(10,2)); INSERT INTO amounts VALUES (1.5), ('abc')",
    );
    ledger.close();
    addDatasource(
      w,
      "ledger",
      openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${w.dir}/ledger.sqlite`)),
    );
    const unstageable = await pipeline(w, [
      staged("stage", "ledger", "SELECT v FROM amounts", { table: "amounts" }),
    ]);
    const staging = assertFailed(
      await runs.run(unstageable),
      "pipeline.node.staging_failed",
      "stage",
    );
    equal(staging.details.node_id, "stage");

    // Every write-shaped use of a readonly datasource: DML, DDL, and a DQL writing back.
    for (
      const node of [
        { id: "w", type: "DML", source: "locked", sql: "DELETE FROM people" },
        { id: "w", type: "DDL", source: "locked", sql: "DROP TABLE people" },
        dql("w", {
          source: "crm",
          sql: "SELECT id FROM people",
          output: { target: "datasource", datasource: "locked", table: "people", mode: "append" },
        }),
      ]
    ) {
      const id = await pipeline(w, [node]);
      const refused = assertFailed(await runs.run(id), "pipeline.node.readonly_datasource", "w");
      equal(refused.details.datasource, "locked");
    }
    // The refusal came before any write: the readonly table is whole.
    const check = await pipeline(w, [
      dql("n", { source: "locked", sql: "SELECT count(*) AS n FROM people" }),
    ]);
    const counted = await runs.run(check, {}, { expectDataReady: true });
    deepEqual(counted.byType.get("data_ready")![0].data.rows, [[3]]);
  },
);

forEachCrmWorld(
  "render failures, a missing template and a calculator defect fail their node",
  async (w, runs) => {
    const params = { parameters: { team: { type: "string", default: "red" } } };

    const printed = await template(
      w,
      "sql/printed",
      "SELECT * FROM people WHERE team = '{{ params.team }}'",
    );
    const interpolating = await pipeline(w, [
      dql("read", { source: "crm", template: { id: printed, version: 1 } }),
    ], params);
    const refused = assertFailed(
      await runs.run(interpolating),
      "template.render.parameter_interpolation",
      "read",
    );
    equal(refused.node!.template, printed);
    ok(!JSON.stringify(refused).includes("'red'"), "the value never reaches the record");

    const broken = await template(w, "sql/unclosed", "SELECT 1 {% if params.team %}");
    const syntax = await pipeline(w, [
      dql("read", { source: "crm", template: { id: broken, version: 1 } }),
    ], params);
    assertFailed(await runs.run(syntax), "template.render.syntax_error", "read");

    const stray = await template(w, "sql/stray", "SELECT 1 {% render 'nowhere' %}");
    const strayImport = await pipeline(w, [
      dql("read", { source: "crm", template: { id: stray, version: 1 } }),
    ]);
    assertFailed(await runs.run(strayImport), "template.render.unknown_import", "read");

    const unknown = await pipeline(w, [
      dql("read", { source: "crm", template: { id: "sql/no_such", version: 1 } }),
    ]);
    assertFailed(await runs.run(unknown), "template.not_found", "read");

    const calc = await pipeline(w, [
      {
        id: "num",
        type: "CALCULATOR",
        calculator: {
          name: "to_integer",
          inputs: { value: { param: "team" } },
          writes: { value: "n" },
        },
      },
      dql("read", {
        source: "crm",
        sql: "SELECT * FROM people WHERE id = :n",
        depends_on: ["num"],
      }),
    ], params);
    const c = await runs.run(calc);
    const defect = assertFailed(c, "pipeline.calculator.invalid_input", "num");
    equal(defect.details.calculator, "to_integer");
    equal(c.record.node_stats!.find((s) => s.node_id === "read")!.status, "ABORTED");
    ok(!c.byType.get("node_started")!.some((f) => f.data.node_id === "read"));
  },
);

forEachCrmWorld(
  "a child that fails fails its PIPELINE node with child_failed; a bad child input fails it too",
  async (w, runs) => {
    const child = await pipeline(
      w,
      [dql("inner", { source: "crm", sql: "SELECT nope FROM people WHERE id = :n" })],
      { parameters: { n: { type: "integer", required: true } } },
      { release: true },
    );
    const parent = await pipeline(w, [
      { id: "sub", type: "PIPELINE", pipeline: { id: child }, parameters: { n: 1 } },
    ]);
    const run = await runs.run(parent);
    const failure = assertFailed(run, "pipeline.node.child_failed", "sub");
    equal(failure.details.child_code, "pipeline.node.statement_failed");
    const childId = String(failure.details.child_execution_id);
    const inner = await runs.child(childId);
    equal(inner.record.status, "FAILED");
    equal(inner.record.failed_node_id, "inner");
    equal(inner.record.error!.code, "pipeline.node.statement_failed");
    equal(inner.record.parent_execution_id, run.record.execution_id);

    // A child input that does not coerce to the declared type: the child never starts.
    const mistyped = await pipeline(w, [
      { id: "sub", type: "PIPELINE", pipeline: { id: child }, parameters: { n: "seven" } },
    ]);
    const m = await runs.run(mistyped);
    const coerce = assertFailed(m, "pipeline.execution.invalid_parameter_type", "sub");
    equal(coerce.details.parameter, "n");

    // Nesting past the limit.
    const deep = await runs.run(parent, {}, { executor: w.executor({ maxDepth: 0 }) });
    assertFailed(deep, "pipeline.execution.depth_exceeded", "sub");
  },
);

forEachCrmWorld(
  "result.too_large and result.storage_unavailable fail the caller node; nothing is readable",
  async (w, runs) => {
    const id = await pipeline(w, [
      dql("big", {
        source: "crm",
        sql:
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) SELECT i, 'padding padding' AS p FROM n",
      }),
    ]);
    const small = new ResultStore(new MemoryStore(), { maxBytes: 5_000, chunkRows: 100 });
    const tooLarge = await runs.run(id, {}, { executor: w.executor({ results: small }) });
    assertFailed(tooLarge, "result.too_large", "big");
    equal(await small.page(tooLarge.record.execution_id, 0, 10), null);
    equal(tooLarge.record.result_row_count, null);

    const down = new MemoryStore();
    await down.close();
    const unavailable = new ResultStore(down, { maxBytes: 10_000_000, chunkRows: 100 });
    const lost = await runs.run(id, {}, { executor: w.executor({ results: unavailable }) });
    const failure = assertFailed(lost, "result.storage_unavailable", "big");
    ok(!JSON.stringify(failure.details).includes("memory"), "no dependency is named");
    equal(lost.record.result_expires_at, null);
  },
);

forEachCrmWorld(
  "prepare reports every parameter defect with its code, before any stream",
  async (w) => {
    const id = await pipeline(w, [
      dql("read", { source: "crm", sql: "SELECT * FROM people WHERE id = :n" }),
    ], {
      parameters: {
        n: { type: "integer", required: true },
        day: { type: "date" },
        flag: { type: "boolean" },
        colour: { type: "string", enum: ["red", "blue"] },
        ids: { type: "integer_list" },
      },
    });
    const executor = w.executor();
    await rejects(
      executor.prepare(request(w, id, {
        parameters: { n: "x1", day: "2024-13-01", flag: "maybe", colour: "green", ids: [1, "b"] },
      })),
      (e: AppError) => {
        equal(e.code, "pipeline.execution.invalid_parameter_type");
        equal(e.status, 400);
        const errors = e.details.errors as { parameter: string; code: string }[];
        deepEqual(errors.map((d) => [d.parameter, d.code]).sort(), [
          ["colour", "pipeline.execution.invalid_parameter_type"],
          ["day", "pipeline.execution.invalid_parameter_type"],
          ["flag", "pipeline.execution.invalid_parameter_type"],
          ["ids", "pipeline.execution.invalid_parameter_type"],
          ["n", "pipeline.execution.invalid_parameter_type"],
        ]);
        return true;
      },
    );
    // A missing required value outranks malformed ones; an undeclared name is a defect too.
    await rejects(
      executor.prepare(request(w, id, { parameters: { day: "nope", extra: 1 } })),
      (e: AppError) => {
        equal(e.code, "pipeline.execution.parameter_required");
        equal(e.details.parameter, "n");
        const names = (e.details.errors as { parameter: string }[]).map((d) => d.parameter);
        deepEqual(names.sort(), ["day", "extra", "n"]);
        return true;
      },
    );
    const ok1 = await executor.prepare(
      request(w, id, { parameters: { n: 2, day: "2024-02-29", flag: true, ids: [1, 2] } }),
    );
    equal(ok1.parameters.n, 2);
  },
);

forEachWorld(
  "a datasource that cannot be opened or read fails its node with datasource_connection_failed",
  async (w, runs) => {
    // A SQLite file that is not there (never created by a read), a MariaDB port that refuses,
    // and a lake table whose files are gone.
    addDatasource(
      w,
      "gone",
      openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${w.dir}/missing.sqlite`)),
    );
    addDatasource(
      w,
      "refusing",
      openConnector(connectorConfig("MYSQL", "jdbc:mariadb://127.0.0.1:1/none", {
        username: "root",
        hikari: { connectionTimeout: 2000 },
      })),
    );
    addDatasource(
      w,
      "lake",
      new LakeConnector({
        datasource: "lake",
        jdbc_url: `jdbc:lake:file://${w.dir}`,
        tables: [{
          namespace: ["sales"],
          name: "orders",
          format: "parquet",
          location: `file://${w.dir}/sales/orders/*.parquet`,
        }],
      }),
    );
    for (
      const [source, sql, errorClass] of [
        ["gone", "SELECT 1", "config"],
        ["refusing", "SELECT 1", "unreachable"],
        ["lake", "SELECT * FROM sales.orders", null],
      ] as const
    ) {
      const id = await pipeline(w, [dql("read", { source, sql })]);
      const failure = assertFailed(
        await runs.run(id),
        "pipeline.node.datasource_connection_failed",
        "read",
      );
      equal(failure.details.datasource, source);
      if (errorClass) equal(failure.details.error_class, errorClass, source);
    }
  },
);
