import { deepEqual } from "node:assert/strict";
import { lineDiff } from "./line_diff.ts";

Deno.test("lineDiff() keeps common lines and marks what was removed and added, in order", () => {
  const diff = lineDiff("a\nb\nc\nd", "a\nc\nx\nd");
  deepEqual(diff.map((l) => l.op + l.text), [" a", "-b", " c", "+x", " d"]);
});

Deno.test("lineDiff() of equal texts is all kept; of disjoint texts all removed then added", () => {
  deepEqual(lineDiff("p\nq", "p\nq").map((l) => l.op), [" ", " "]);
  deepEqual(lineDiff("p", "q").map((l) => l.op + l.text), ["-p", "+q"]);
});
