import { deepEqual as assertEquals } from "node:assert/strict";
import { redact, redactUrl } from "./redact.ts";

Deno.test("redactUrl() masks the password of a connection URL", () => {
  assertEquals(
    redactUrl("connect postgres://app:s3cr3t@db:5432/x failed"),
    "connect postgres://app:***@db:5432/x failed",
  );
  assertEquals(redactUrl("redis://:pw@127.0.0.1:6379"), "redis://:***@127.0.0.1:6379");
  assertEquals(redactUrl("http://example.com/a:b@c"), "http://example.com/a:b@c");
});

Deno.test("redact() hides secret-named fields at any depth", () => {
  assertEquals(
    redact({ a: 1, jwt_secret: "x", nested: { password: "y", ok: true, apiKey: "k" } }),
    {
      a: 1,
      jwt_secret: "[redacted]",
      nested: { password: "[redacted]", ok: true, apiKey: "[redacted]" },
    },
  );
});
