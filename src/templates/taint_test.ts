import { deepEqual, equal, notEqual, ok, throws } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { inertParams, ParameterLeak, Tainted } from "./taint.ts";

Deno.test("inertParams() copies JSON data into null-prototype records", () => {
  const date = new Date("2024-01-02T03:04:05Z");
  const source = JSON.parse(
    '{"__proto__": {"a": 1}, "list": [1, "x", null, true], "n": {"m": {}}}',
  );
  source.when = date;
  source.big = 12n;
  source.gap = undefined;
  const copy = inertParams(source);
  equal(Object.getPrototypeOf(copy), null);
  deepEqual(Object.keys(copy), ["__proto__", "list", "n", "when", "big", "gap"]);
  deepEqual({ ...(copy["__proto__"] as object) }, { a: 1 });
  deepEqual(copy.list, [1, "x", null, true]);
  equal(copy.gap, null);
  equal(copy.big, 12n);
  equal((copy.when as Date).getTime(), date.getTime());
  notEqual(copy.when, date);
  // Detached: later changes to the caller's object do not reach the render.
  source.list.push("late");
  deepEqual(copy.list, [1, "x", null, true]);
  deepEqual({ ...inertParams(undefined) }, {});
});

Deno.test("inertParams() refuses non-data, naming the field", () => {
  const deep: Record<string, unknown> = {};
  let cursor = deep;
  for (let i = 0; i < 40; i++) cursor = (cursor.k = {}) as Record<string, unknown>;
  const cases: [unknown, string][] = [
    [[1], "context"],
    ["x", "context"],
    [{ f: () => 1 }, "context.f"],
    [{ list: [1, { g: Symbol("s") }] }, "context.list[1].g"],
    [{
      get a() {
        return 1;
      },
    }, "context.a"],
    [{ m: new Map() }, "context.m"],
    [{ r: /x/ }, "context.r"],
    [deep, "context" + ".k".repeat(33)],
  ];
  for (const [value, field] of cases) {
    throws(() => inertParams(value), (e: unknown) => {
      ok(e instanceof AppError);
      equal(e.code, "pipeline.execution.invalid_parameter_type");
      equal(e.details.field, field);
      return true;
    });
  }
});

Deno.test("a Tainted refuses every conversion to a primitive", () => {
  const t = Tainted.root(inertParams({ region: "eu" })).read("region");
  for (
    const convert of [
      () => t.valueOf(),
      () => String(t),
      () => `${t}`,
      () => +(t as unknown as number),
      () => JSON.stringify(t),
    ]
  ) {
    throws(convert, (e: unknown) => {
      ok(e instanceof ParameterLeak);
      equal(e.parameter, "region");
      equal(e.path, "params.region");
      return true;
    });
  }
  equal(Tainted.raw(t), "eu");
});

Deno.test("a Tainted's property view exposes data only, each read tainted", () => {
  const root = Tainted.root(inertParams({ list: ["a", "b"], o: { k: 1 } }));
  const view = root.toLiquid() as Record<string, unknown>;
  for (const key of ["list", "o", "missing", "constructor", "__proto__", "toLiquid", "valueOf"]) {
    ok(Object.prototype.hasOwnProperty.call(view, key), key);
    ok(view[key] instanceof Tainted, key);
  }
  deepEqual(Object.keys(view), []);
  const list = (view.list as Tainted).toLiquid() as Record<string, Tainted>;
  deepEqual([list.size, list.first, list.last, list[-1], list[5]].map(Tainted.raw), [
    2,
    "a",
    "b",
    "b",
    undefined,
  ]);
  deepEqual((view.list as Tainted).items().map(Tainted.raw), ["a", "b"]);
  deepEqual((view.o as Tainted).items().map(Tainted.raw), [["k", 1]]);
});
