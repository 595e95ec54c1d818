import { equal } from "node:assert/strict";
import { pgTimestamptz } from "./postgres_types.ts";

Deno.test("pgTimestamptz writes the server's UTC text as ISO 8601 and passes the rest as sent", () => {
  equal(pgTimestamptz("2024-01-02 03:04:05+00"), "2024-01-02T03:04:05Z");
  equal(pgTimestamptz("2024-01-02 03:04:05.123456+00"), "2024-01-02T03:04:05.123456Z");
  equal(pgTimestamptz("12024-01-02 03:04:05.5+00"), "12024-01-02T03:04:05.5Z");
  for (const text of ["infinity", "-infinity", "0044-03-15 12:00:00+00 BC", ""]) {
    equal(pgTimestamptz(text), text);
  }
});
