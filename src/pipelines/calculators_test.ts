import { deepEqual, equal } from "node:assert/strict";
import { getCalculator, listCalculators, runCalculator } from "./calculators.ts";
import { refuses } from "../../tests/support/refusals.ts";

const TODAY = "2026-11-22"; // a Sunday

const calc = (name: string, inputs: Record<string, unknown>, today = TODAY) =>
  getCalculator(name)!.run(inputs, today);

Deno.test("the catalogue holds at least the documented calculators, each described", () => {
  const names = listCalculators().map((c) => c.name);
  for (
    const n of [
      "date_range",
      "date_add",
      "date_trunc",
      "today",
      "coalesce",
      "concat",
      "split",
      "to_integer",
      "lookup",
    ]
  ) equal(names.includes(n), true, n);
  for (const c of listCalculators()) {
    equal(typeof c.description, "string");
    equal("run" in c, false);
  }
});

Deno.test("date_range() answers each named period relative to today, weeks from Monday", () => {
  const r = (period: string, today = TODAY) => calc("date_range", { period, today });
  deepEqual(r("today"), { start: "2026-11-22", end: "2026-11-22" });
  deepEqual(r("yesterday"), { start: "2026-11-21", end: "2026-11-21" });
  deepEqual(r("last_7_days"), { start: "2026-11-16", end: "2026-11-22" });
  deepEqual(r("week_to_date"), { start: "2026-11-16", end: "2026-11-22" });
  deepEqual(r("last_week"), { start: "2026-11-09", end: "2026-11-15" });
  deepEqual(r("month_to_date"), { start: "2026-11-01", end: "2026-11-22" });
  deepEqual(r("last_month", "2024-03-31"), { start: "2024-02-01", end: "2024-02-29" });
  deepEqual(r("quarter_to_date"), { start: "2026-10-01", end: "2026-11-22" });
  deepEqual(r("last_quarter", "2026-01-15"), { start: "2025-10-01", end: "2025-12-31" });
  deepEqual(r("year_to_date"), { start: "2026-01-01", end: "2026-11-22" });
  deepEqual(r("last_year"), { start: "2025-01-01", end: "2025-12-31" });
  deepEqual(r("last_30_days"), { start: "2026-10-24", end: "2026-11-22" });
});

Deno.test("date_add() and date_trunc() do calendar arithmetic with clamped month ends", () => {
  deepEqual(calc("date_add", { date: "2024-01-31", months: 1 }), { value: "2024-02-29" });
  deepEqual(calc("date_add", { date: "2024-02-29", years: 1 }), { value: "2025-02-28" });
  deepEqual(calc("date_add", { date: "2026-12-31", days: 1 }), { value: "2027-01-01" });
  deepEqual(calc("date_add", { date: "2026-03-01", days: -1 }), { value: "2026-02-28" });
  deepEqual(calc("date_trunc", { date: TODAY, unit: "week" }), { value: "2026-11-16" });
  deepEqual(calc("date_trunc", { date: TODAY, unit: "quarter" }), { value: "2026-10-01" });
  deepEqual(calc("date_trunc", { date: TODAY, unit: "year" }), { value: "2026-01-01" });
});

Deno.test("the text and value calculators", () => {
  deepEqual(calc("today", {}), { value: TODAY });
  deepEqual(calc("coalesce", { values: [null, "", "x", "y"] }), { value: "x" });
  deepEqual(calc("coalesce", { values: [null] }), { value: null });
  deepEqual(calc("concat", { values: ["a", null, 1], separator: "-" }), { value: "a-1" });
  deepEqual(calc("split", { value: " a, b,,c " }), { value: ["a", "b", "c"] });
  deepEqual(calc("to_integer", { value: "-12.9" }), { value: -12 });
  deepEqual(calc("lookup", { key: "eu", table: { eu: "Europe" } }), { value: "Europe" });
  deepEqual(calc("lookup", { key: "xx", table: { eu: "Europe" }, default: "?" }), { value: "?" });
  deepEqual(calc("lookup", { key: "constructor", table: {} }), { value: null });
});

Deno.test("runCalculator() resolves parameter references and writes the named outputs", () => {
  const derived = runCalculator(
    {
      name: "date_range",
      inputs: { period: { param: "window" } },
      writes: { start: "from_day", end: "to_day" },
    },
    { window: "last_7_days" },
    TODAY,
  );
  deepEqual(derived, { from_day: "2026-11-16", to_day: "2026-11-22" });
  deepEqual(
    runCalculator(
      {
        name: "coalesce",
        inputs: { values: [{ param: "a" }, "fallback"] },
        writes: { value: "b" },
      },
      {},
      TODAY,
    ),
    { b: "fallback" },
  );
});

Deno.test("bad calculator input answers pipeline.calculator.invalid_input naming it", async () => {
  const invalid = (fn: () => unknown, input: string) =>
    refuses(fn, "pipeline.calculator.invalid_input", { input });
  await invalid(() => calc("date_range", { period: "fortnight" }), "period");
  await invalid(() => calc("date_add", { date: "2026-02-30" }), "date");
  await invalid(() => calc("date_add", { date: TODAY, days: 1.5 }), "days");
  await invalid(() => calc("date_trunc", { date: TODAY, unit: "decade" }), "unit");
  await invalid(() => calc("to_integer", { value: "12abc" }), "value");
  await invalid(() => calc("split", { value: "a", separator: "" }), "separator");
  await invalid(() => runCalculator({ name: "nope", writes: {} }, {}, TODAY), "name");
  await invalid(
    () => runCalculator({ name: "today", inputs: { x: 1 }, writes: {} }, {}, TODAY),
    "x",
  );
  await invalid(
    () => runCalculator({ name: "today", writes: { nope: "y" } }, {}, TODAY),
    "nope",
  );
  await invalid(
    () =>
      runCalculator({ name: "date_add", inputs: { date: { param: "d" } }, writes: {} }, {}, TODAY),
    "date",
  );
});
