import { equal } from "node:assert/strict";
import { renderReadme } from "../scripts/config_reference.ts";

Deno.test("README's configuration reference matches the config schema", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  equal(renderReadme(readme), readme, "stale: run `deno task docs:config`");
});
