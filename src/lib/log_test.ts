import { deepEqual, equal, ok } from "node:assert/strict";
import { createLogger, requestContext } from "./log.ts";

Deno.test("log lines are JSON with level, time, message, correlation id and redacted fields", () => {
  const lines: string[] = [];
  const log = createLogger("info", (l) => lines.push(l));
  log.debug("hidden");
  requestContext.run({ correlationId: "c0ffee00-0000-4000-8000-000000000000" }, () => {
    log.info("connecting to postgres://app:hunter2@db/x", { jwt_secret: "hunter2", port: 5432 });
  });
  equal(lines.length, 1);
  const line = JSON.parse(lines[0]);
  equal(line.level, "info");
  ok(!Number.isNaN(Date.parse(line.time)));
  equal(line.correlation_id, "c0ffee00-0000-4000-8000-000000000000");
  deepEqual([line.jwt_secret, line.port], ["[redacted]", 5432]);
  ok(!lines[0].includes("hunter2"));
});
