/**
 * A quick A/B probe for work on the serve path (not part of `deno task bench`): the issue-13
 * endpoint only, 50 clients (or as many as asked), and the server's CPU per request, which moves
 * far less than req/s when other work shares the machine. With `--cpu-prof` (a Deno flag, before
 * the script) the profile covers the whole process; the printed window (t0, t1 in ms since start)
 * is what `bench/cpuprofile_top.ts` should be given to keep set-up out of the figures.
 *
 * `--without-store-writes` is an ablation, to price what every serve must store (its record, a row
 * per event, its final record, its `endpoint.served` row): once the endpoint is published, the
 * metadata store's transactions (the group commit's only way in) run their statements against
 * nothing. Every serve still queues, gathers and awaits its rows; only SQLite's work is gone. The
 * service is not fit for use in this state, so only this probe does it.
 *
 *   deno run -A bench/endpoint_cpu.ts [seconds] [clients, default 50] [--without-store-writes]
 *   deno run -A --cpu-prof --cpu-prof-dir=/tmp/prof bench/endpoint_cpu.ts 10
 *   deno run -A bench/cpuprofile_top.ts /tmp/prof/CPU.*.cpuprofile <t0> <t1> <requests>
 */
import process from "node:process";
import v8 from "node:v8";
import { publishedOrders } from "./endpoints.ts";
import { load } from "./load_client.ts";
import { NO_STORE } from "./serve_rows.ts";

const flags = Deno.args.filter((a) => a.startsWith("--"));
const [seconds = 6, clients = 50] = Deno.args.filter((a) => !a.startsWith("--")).map(Number);
const { endpointUrl, headers, server, close } = await publishedOrders();
// The bench's server runs on the embedded store, whose dialect NO_STORE reports.
if (flags.includes("--without-store-writes")) server.runtime.db.transaction = NO_STORE.transaction;
try {
  await load(endpointUrl, 2, 10, headers);
  const t0 = performance.now();
  const before = process.cpuUsage();
  // Bytes the server's heap allocated (the load runs in another process): unlike CPU time, not
  // inflated by other work on the machine.
  const allocatedBefore = v8.getHeapStatistics().total_allocated_bytes;
  const r = await load(endpointUrl, seconds, clients, headers);
  const cpu = process.cpuUsage(before);
  const allocated = v8.getHeapStatistics().total_allocated_bytes - allocatedBefore;
  const t1 = performance.now();
  const per = (micros: number) => (micros / 1000 / Math.max(1, r.requests)).toFixed(3);
  console.log(
    `${r.rps.toFixed(0)} req/s  cpu ${per(cpu.user + cpu.system)} ms/req (user ${
      per(cpu.user)
    }, system ${per(cpu.system)})  p50 ${r.p50_ms.toFixed(1)} ms  errors ${r.errors}  (t0 ${
      t0.toFixed(0)
    } t1 ${t1.toFixed(0)} requests ${r.requests})  allocated ${
      (allocated / 1024 / Math.max(1, r.requests)).toFixed(1)
    } KB/req`,
  );
} finally {
  await close();
}
Deno.exit(0);
