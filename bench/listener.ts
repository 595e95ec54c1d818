/**
 * A quick A/B probe of the listener (not part of `deno task bench`): the same trivial handler
 * behind a bare Deno.serve and behind `src/http/listener.ts` (accept loop, per-connection server,
 * timeout guard), alternated, and this process's CPU per request, which is the server's alone:
 * the load runs in its own process. Median of the runs per side.
 *
 *   deno run -A bench/listener.ts [runs, default 5] [seconds, default 5] [clients, default 32]
 */
import process from "node:process";
import { listen } from "../src/http/listener.ts";
import { createLogger } from "../src/lib/log.ts";
import { load } from "./load_client.ts";

const [runs = 5, seconds = 5, clients = 32] = Deno.args.map(Number);
const handler = () => new Response("hello");

const bare = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
const guarded = listen({
  hostname: "127.0.0.1",
  port: 0,
  timeouts: { headerTimeoutSeconds: 10, bodyTimeoutSeconds: 60, idleTimeoutSeconds: 75 },
  logger: createLogger("warn"),
  onError: () => new Response("failed", { status: 500 }),
}, handler);
const sides = {
  "Deno.serve": `http://127.0.0.1:${bare.addr.port}/`,
  "listener": `http://127.0.0.1:${guarded.addr.port}/`,
};

async function measure(url: string, s: number) {
  const before = process.cpuUsage();
  const r = await load(url, s, clients);
  const cpu = process.cpuUsage(before);
  return { rps: r.rps, us: (cpu.user + cpu.system) / Math.max(1, r.requests), errors: r.errors };
}

for (const url of Object.values(sides)) await measure(url, 1); // warm both paths
const seen: Record<string, { rps: number; us: number; errors: number }[]> = {};
for (let i = 0; i < runs; i++) {
  for (const [name, url] of Object.entries(sides)) {
    (seen[name] ??= []).push(await measure(url, seconds));
  }
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of Object.entries(seen)) {
  console.log(
    `${name.padEnd(11)} cpu ${median(xs.map((x) => x.us)).toFixed(2)} µs/req  ` +
      `${median(xs.map((x) => x.rps)).toFixed(0)} req/s  errors ${
        xs.reduce((a, x) => a + x.errors, 0)
      }`,
  );
}
await bare.shutdown();
await guarded.shutdown(1000);
Deno.exit(0);
