import { equal, throws } from "node:assert/strict";
import fc from "fast-check";
import { isoAt } from "./time.ts";

Deno.test("isoAt() writes what toISOString writes, whatever second it was last asked about", () => {
  const instant = fc.oneof(
    fc.integer({ min: -8.64e15, max: 8.64e15 }),
    fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
    // Around now, where consecutive calls share a second and the cache is hit.
    fc.integer({ min: 1_700_000_000_000, max: 1_700_000_003_000 }),
  );
  fc.assert(
    fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (instants) => {
      for (const ms of instants) equal(isoAt(ms), new Date(ms).toISOString(), String(ms));
    }),
    { numRuns: 2000 },
  );
  for (
    const ms of [0, -1, 999, 1000, -1000, -1001, 1.5, -0.5, 8.64e15, -8.64e15, 253402300800000]
  ) {
    equal(isoAt(ms), new Date(ms).toISOString(), String(ms));
  }
});

Deno.test("isoAt() refuses what toISOString refuses", () => {
  for (const ms of [NaN, Infinity, -Infinity, 8.64e15 + 1]) {
    throws(() => isoAt(ms), RangeError, String(ms));
  }
});
