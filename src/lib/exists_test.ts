import { equal } from "node:assert/strict";
import { exists } from "./exists.ts";

Deno.test("exists(): a file and a dangling link exist, unless the link is followed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "exists_test_" });
  try {
    await Deno.writeTextFile(`${dir}/file`, "x");
    await Deno.symlink(`${dir}/missing`, `${dir}/dangling`);
    equal(await exists(`${dir}/file`), true);
    equal(await exists(`${dir}/file`, { followLinks: true }), true);
    equal(await exists(`${dir}/missing`), false);
    equal(await exists(`${dir}/dangling`), true);
    equal(await exists(`${dir}/dangling`, { followLinks: true }), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
