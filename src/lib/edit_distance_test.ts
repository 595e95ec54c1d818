import { equal } from "node:assert/strict";
import { editDistance } from "./edit_distance.ts";

Deno.test("editDistance() counts single-character edits and ignores case", () => {
  equal(editDistance("orders", "orders"), 0);
  equal(editDistance("Orders", "ORDERS"), 0);
  equal(editDistance("order", "orders"), 1);
  equal(editDistance("ordres", "orders"), 2);
  equal(editDistance("kitten", "sitting"), 3);
  equal(editDistance("", "abc"), 3);
});
