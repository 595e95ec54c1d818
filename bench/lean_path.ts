/**
 * A probe for the lean serving path (issue 25 item 2; not part of `deno task bench`): one
 * published one-read endpoint (a SQLite `people` read, the embedded store) served through the
 * domain, without HTTP or a load generator, by two servers over one executions service: the lean
 * path and the general one (`leanPath: false`). Serves run one after another in alternating
 * blocks, so both paths share whatever else loads the machine at the same moments; printed per
 * path: the server's CPU time and the heap bytes allocated per serve, and their ratio.
 *
 *   deno run -A bench/lean_path.ts [serves per block, default 200] [blocks per path, default 5]
 */
import process from "node:process";
import v8 from "node:v8";
import { EndpointServer } from "../src/endpoints/serve.ts";
import { endpointWorld, publishPeople, RESULT_LIMITS } from "../src/endpoints/test_fixtures.ts";
import { sqliteSource } from "../src/executions/executor_fixtures.ts";
import { migrate } from "../src/store/mod.ts";
import { freshStore } from "../tests/support/stores.ts";

const [perBlock = 200, blocks = 5] = Deno.args.map(Number);
const store = await freshStore("sqlite");
const db = await store.open();
await migrate(db);
const e = await endpointWorld(db, { maxConcurrentPerUser: 1000 });
try {
  sqliteSource(e.w, "lite");
  const { key } = await publishPeople(e);
  const server = (leanPath: boolean) =>
    new EndpointServer({
      db,
      live: e.live,
      released: e.versions,
      executions: e.executions,
      resultLimits: RESULT_LIMITS,
      leanPath,
    });
  const paths = { lean: server(true), general: server(false) };
  const serve = async (s: EndpointServer) => {
    const r = await s.serve({
      principal: key,
      path: "/people/red",
      query: [],
      correlationId: crypto.randomUUID(),
    });
    if (r.status !== 200) throw new Error(`status ${r.status}`);
  };
  // Warm both paths up.
  for (let i = 0; i < perBlock; i++) {
    await serve(paths.lean);
    await serve(paths.general);
  }
  const totals = { lean: { cpu: 0, bytes: 0, ms: 0 }, general: { cpu: 0, bytes: 0, ms: 0 } };
  for (let b = 0; b < blocks; b++) {
    for (const name of b % 2 === 0 ? ["lean", "general"] as const : ["general", "lean"] as const) {
      const cpu = process.cpuUsage();
      const bytes = v8.getHeapStatistics().total_allocated_bytes;
      const t = performance.now();
      for (let i = 0; i < perBlock; i++) await serve(paths[name]);
      const used = process.cpuUsage(cpu);
      totals[name].ms += performance.now() - t;
      totals[name].cpu += (used.user + used.system) / 1000;
      totals[name].bytes += v8.getHeapStatistics().total_allocated_bytes - bytes;
    }
  }
  const n = perBlock * blocks;
  const per = (p: keyof typeof totals) => ({
    cpu: totals[p].cpu / n,
    kb: totals[p].bytes / 1024 / n,
    ms: totals[p].ms / n,
  });
  const lean = per("lean");
  const general = per("general");
  for (const [name, f] of [["lean", lean], ["general", general]] as const) {
    console.log(
      `${name.padEnd(8)} ${f.cpu.toFixed(3)} ms CPU/serve  ${f.kb.toFixed(1)} KB/serve  ` +
        `${f.ms.toFixed(3)} ms/serve (${n} serves)`,
    );
  }
  console.log(
    `lean / general: CPU ${(lean.cpu / general.cpu).toFixed(2)}, allocated ${
      (lean.kb / general.kb).toFixed(2)
    }, time ${(lean.ms / general.ms).toFixed(2)}`,
  );
} finally {
  await e.close();
  await store.dispose();
}
Deno.exit(0);
