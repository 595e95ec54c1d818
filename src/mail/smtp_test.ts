import { deepEqual, equal, match, ok } from "node:assert/strict";
import { deliver, type SmtpSettings } from "./smtp.ts";

const mail = { from: "noreply@svc.example", to: ["a@example.com"], subject: "s", text: "t" };

function settings(over: Partial<SmtpSettings>): SmtpSettings {
  return { host: "127.0.0.1", port: 25, connectTimeoutMs: 10_000, ioTimeoutMs: 30_000, ...over };
}

Deno.test("deliver(): a name that does not resolve is a connect failure, retried", async () => {
  const delays: number[] = [];
  const result = await deliver(settings({ host: "no-such-host.invalid" }), mail, {
    sleep: (ms) => Promise.resolve(void delays.push(ms)),
  });
  ok(!result.ok);
  equal(result.attempts, 3);
  equal(result.stage, "connect");
  deepEqual(delays, [250, 1000]);
});

Deno.test("deliver(): a server that connects but never greets times out once, no retry", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const result = await deliver(
      settings({ port: (listener.addr as Deno.NetAddr).port, ioTimeoutMs: 200 }),
      mail,
      { sleep: () => Promise.reject(new Error("must not retry")) },
    );
    ok(!result.ok);
    equal(result.attempts, 1);
    equal(result.stage, "session");
    match(result.error, /ETIMEDOUT/);
    equal(held.length, 1);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const c of held) c.close();
  }
});
