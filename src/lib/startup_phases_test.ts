import { deepEqual, ok } from "node:assert/strict";
import { StartupPhases } from "./startup_phases.ts";

Deno.test("startup phases: each mark ends a phase, in order, and the total is since the start", async () => {
  const phases = new StartupPhases();
  phases.mark("module_load");
  await new Promise((r) => setTimeout(r, 30));
  phases.mark("config");
  const summary = phases.summary();
  deepEqual(Object.keys(summary), ["module_load_ms", "config_ms", "total_ms"]);
  ok(summary.config_ms >= 25, `config took ${summary.config_ms} ms`);
  ok(summary.total_ms >= summary.module_load_ms + summary.config_ms - 1);
});
