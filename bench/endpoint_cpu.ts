/**
 * A quick A/B probe for work on the serve path (not part of `deno task bench`): the issue-13
 * endpoint only, 50 clients (or as many as asked), and the server's CPU per request, which moves far less than req/s
 * when other work shares the machine. With `--cpu-prof` (a Deno flag, before the script) the
 * profile covers the whole process; the printed window (t0, t1 in ms since start) is what
 * `bench/cpuprofile_top.ts` should be given to keep set-up out of the figures.
 *
 *   deno run -A bench/endpoint_cpu.ts [seconds] [clients, default 50]
 *   deno run -A --cpu-prof --cpu-prof-dir=/tmp/prof bench/endpoint_cpu.ts 10
 *   deno run -A bench/cpuprofile_top.ts /tmp/prof/CPU.*.cpuprofile <t0> <t1> <requests>
 */
import process from "node:process";
import { publishedOrders } from "./endpoints.ts";
import { load } from "./load_client.ts";

const seconds = Number(Deno.args[0] ?? 6);
const clients = Number(Deno.args[1] ?? 50);
const { endpointUrl, headers, close } = await publishedOrders();
try {
  await load(endpointUrl, 2, 10, headers);
  const t0 = performance.now();
  const before = process.cpuUsage();
  const r = await load(endpointUrl, seconds, clients, headers);
  const cpu = process.cpuUsage(before);
  const t1 = performance.now();
  const perRequest = (cpu.user + cpu.system) / 1000 / Math.max(1, r.requests);
  console.log(
    `${r.rps.toFixed(0)} req/s  cpu ${perRequest.toFixed(3)} ms/req  p50 ${
      r.p50_ms.toFixed(1)
    } ms  errors ${r.errors}  (t0 ${t0.toFixed(0)} t1 ${t1.toFixed(0)} requests ${r.requests})`,
  );
} finally {
  await close();
}
Deno.exit(0);
