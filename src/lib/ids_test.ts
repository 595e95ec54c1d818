import { equal, ok } from "node:assert/strict";
import { isUuid, newId } from "./ids.ts";

Deno.test("newId() mints version 7 UUIDs that sort in minting order, also within a millisecond", () => {
  const ids = Array.from({ length: 10_000 }, () => newId());
  for (const id of ids) {
    ok(isUuid(id), id);
    equal(id[14], "7", `version nibble of ${id}`);
    ok("89ab".includes(id[19]), `variant of ${id}`);
  }
  equal(new Set(ids).size, ids.length);
  const sorted = [...ids].sort();
  equal(sorted.join(), ids.join());
});

Deno.test("isUuid() accepts the canonical form only", () => {
  ok(isUuid("0190a4b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b"));
  for (const bad of ["", "x", 42, null, "0190a4b2-7c3d-7e4f-8a1b-2c3d4e5f6a7", "{0190a4b2-7c3d}"]) {
    ok(!isUuid(bad), String(bad));
  }
});
