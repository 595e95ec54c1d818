import { deepEqual, equal, ok } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { exceptionChain, failureRecord, MAX_FRAMES, MAX_LEVELS, redactValues } from "./failure.ts";

const context = {
  baseUrl: "https://svc.example",
  correlationId: "0190a4b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b",
  node: { id: "orders", type: "DQL", datasource: "wh", dialect: "POSTGRES" },
  sql: "SELECT * FROM orders WHERE region = :region",
};

function nested(depth: number): Error {
  let error = new Error("root cause");
  for (let i = 1; i < depth; i++) error = new Error(`level ${i}`, { cause: error });
  return error;
}

Deno.test("failureRecord() under full carries node, sql and the cause chain outermost first", () => {
  const driver = new TypeError("connection reset");
  const thrown = new AppError("result.storage_unavailable", { execution_id: "e1" });
  thrown.cause = driver;
  const record = failureRecord(thrown, { ...context, detail: "full" });
  equal(record.code, "result.storage_unavailable");
  deepEqual(record.details, { execution_id: "e1" });
  equal(
    record.doc_url,
    "https://svc.example/docs/errors#result.storage_unavailable",
  );
  equal(record.correlation_id, context.correlationId);
  deepEqual(record.node, context.node);
  equal(record.sql, context.sql);
  equal(record.exception!.class, "AppError");
  deepEqual(record.exception!.caused_by.map((c) => [c.class, c.message]), [[
    "TypeError",
    "connection reset",
  ]]);
  ok(record.exception!.frames.length > 0);
  ok(record.exception!.frames.every((f) => !f.startsWith("at ")));
  ok(record.exception!.frames.some((f) => f.includes("src/executions/failure_test.ts")));
  ok(!JSON.stringify(record).includes(new URL("../..", import.meta.url).href));
});

Deno.test("failureRecord() under structured leaves out node, sql and exception", () => {
  const record = failureRecord(new AppError("result.too_large", { max_size_bytes: 10 }), {
    ...context,
    detail: "structured",
  });
  deepEqual(Object.keys(record).sort(), [
    "code",
    "correlation_id",
    "details",
    "doc_url",
    "message",
    "user_message",
  ]);
});

Deno.test("failureRecord() reports a foreign error under the fallback code, keeping it as the exception", () => {
  const record = failureRecord(new RangeError("boom"), { ...context, detail: "full" });
  equal(record.code, "internal.unexpected");
  equal(record.exception!.class, "RangeError");
  equal(record.exception!.message, "boom");
  const setup = failureRecord(
    "a string",
    { baseUrl: "x", correlationId: "c", detail: "full" },
    new AppError("result.storage_unavailable", { execution_id: "e" }),
  );
  equal(setup.code, "result.storage_unavailable");
  equal(setup.node, undefined);
  equal(setup.sql, undefined);
  deepEqual(setup.exception, { class: "string", message: "a string", frames: [], caused_by: [] });
});

Deno.test("exceptionChain() keeps at most 16 levels and 40 frames per level, and cuts cycles", () => {
  const deep = exceptionChain(nested(30));
  equal(1 + deep.caused_by.length, MAX_LEVELS);
  equal(deep.message, "level 29");

  const recurse = (n: number): never =>
    n === 0
      ? (() => {
        throw new Error("deep stack");
      })()
      : recurse(n - 1);
  let tall: Error | undefined;
  Error.stackTraceLimit = 100;
  try {
    recurse(80);
  } catch (e) {
    tall = e as Error;
  } finally {
    Error.stackTraceLimit = 10;
  }
  equal(exceptionChain(tall).frames.length, MAX_FRAMES);

  const a = new Error("a");
  const b = new Error("b", { cause: a });
  a.cause = b;
  deepEqual(exceptionChain(b).caused_by.map((c) => c.message), ["a"]);
});

Deno.test("redactValues() cuts bound values from text: long ones anywhere, short ones where quoted", () => {
  const values = ["bound-value", 42, ["DE", "secret list item"], true, ""];
  equal(
    redactValues('invalid input syntax for type integer: "bound-value"', values),
    'invalid input syntax for type integer: "[value]"',
  );
  equal(
    redactValues("Could not convert string 'secret list item'", values),
    "Could not convert string '[value]'",
  );
  // Short values go only where quoted: "DE" in a word or 42 in a line number stay.
  equal(
    redactValues("DEFAULT at line 42: 'DE' and \"42\"", values),
    "DEFAULT at line 42: '[value]' and \"[value]\"",
  );
  equal(redactValues("nothing to cut", values), "nothing to cut");
});

Deno.test("failureRecord() cuts the run's values from message, details and the exception chain", () => {
  const cause = new Error('invalid input syntax for type integer: "bound-value"');
  const thrown = new AppError(
    "pipeline.node.statement_failed",
    {
      node_id: "read",
      dialect: "POSTGRES",
      error_class: "unknown",
      reason: cause.message,
    },
    {},
    {},
  );
  (thrown as { cause?: unknown }).cause = cause;
  for (const detail of ["full", "structured"] as const) {
    const record = failureRecord(thrown, {
      detail,
      baseUrl: "http://x",
      correlationId: "c",
      values: ["bound-value"],
    });
    ok(!JSON.stringify(record).includes("bound-value"), JSON.stringify(record));
    ok(JSON.stringify(record).includes("[value]"));
  }
});
