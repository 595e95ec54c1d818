import { equal } from "node:assert/strict";
import { BearerCheck } from "./bearer.ts";

Deno.test("BearerCheck takes only Authorization: Bearer with the very token", () => {
  const token = "a".repeat(40);
  const check = new BearerCheck(token);
  equal(check.judge(`Bearer ${token}`), null);
  equal(check.judge(`bearer ${token}`), null);
  equal(check.judge(undefined), "missing");
  equal(check.judge(""), "missing");
  equal(check.judge(token), "missing");
  equal(check.judge(`Basic ${token}`), "missing");
  equal(check.judge(`Bearer ${token} extra`), "missing");
  equal(check.judge(`Bearer ${token}a`), "wrong");
  equal(check.judge(`Bearer ${token.slice(1)}`), "wrong");
  equal(check.judge("Bearer x"), "wrong");
});
