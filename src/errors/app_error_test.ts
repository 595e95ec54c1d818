import { equal, ok } from "node:assert/strict";
import { Unavailable } from "../lib/unavailable.ts";
import { AppError, toAppError } from "./mod.ts";

Deno.test("issue 22 finding 4: toAppError answers a store outage 503 service.unavailable, anything unknown 500", () => {
  const outage = new Unavailable("the metadata store is unreachable (ECONNREFUSED)");
  const answered = toAppError(outage);
  equal(answered.code, "service.unavailable");
  equal(answered.status, 503);
  equal(answered.headers["Retry-After"], "1");
  equal(answered.details.reason, outage.reason);
  equal(answered.cause, outage);

  const unknown = new Error("boom");
  equal(toAppError(unknown).code, "internal.unexpected");
  equal(toAppError(unknown).status, 500);

  const known = new AppError("request.not_found", { method: "GET", path: "/x" });
  ok(toAppError(known) === known);
});
