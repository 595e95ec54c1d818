/**
 * A route that exists only in tests: `POST /api/v1/test/echo` answers 201 with the body it was
 * sent, so a test sees the HTTP core's body handling (and the listener's timeouts) on their own.
 */
import { z } from "zod";
import { ok } from "../../src/http/envelope.ts";
import type { Router } from "../../src/http/routing.ts";

export function addEchoRoute(router: Router): void {
  router.add({
    method: "post",
    path: "/api/v1/test/echo",
    tag: "test",
    summary: "echo",
    access: "me.read",
    status: 201,
    body: z.object({ name: z.string().min(1), count: z.int().optional() }),
    response: z.object({ name: z.string(), count: z.int().optional() }),
  }, (c, { body }) => ok(c, body, 201));
}
