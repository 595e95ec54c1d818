import { equal } from "node:assert/strict";
import { renderReadme } from "../scripts/config_reference.ts";

Deno.test("docs/configuration.md matches the config schema", async () => {
  const readme = await Deno.readTextFile(new URL("../docs/configuration.md", import.meta.url));
  equal(renderReadme(readme), readme, "stale: run `deno task docs:config`");
});
