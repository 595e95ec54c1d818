import { deepEqual, rejects } from "node:assert/strict";
import { DEFAULT_RENDER_LIMITS } from "./render.ts";
import { SqlLiquid } from "./sandbox.ts";

function engine(): SqlLiquid {
  return new SqlLiquid({ reference() {}, partial: () => [] }, DEFAULT_RENDER_LIMITS);
}

Deno.test("SqlLiquid knows exactly the reviewed tags", () => {
  // A liquidjs upgrade that adds a tag fails here: a new tag could write values unreviewed.
  deepEqual(Object.keys(engine().tags).sort(), [
    "#",
    "assign",
    "break",
    "capture",
    "case",
    "comment",
    "continue",
    "cycle",
    "echo",
    "for",
    "if",
    "include",
    "liquid",
    "raw",
    "render",
    "unless",
  ]);
});

Deno.test("SqlLiquid reads no file, whatever it is asked", async () => {
  const liquid = engine();
  // README.md and deno.json exist in the working directory: stock liquidjs would read them.
  for (const file of ["/etc/passwd", "README.md", "./deno.json", "../x"]) {
    await rejects(liquid.parseFile(file));
    await rejects(liquid.renderFile(file));
  }
});
