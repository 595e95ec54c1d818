/**
 * `deno task soak [--short]`: three replicas on one PostgreSQL and one Redis (both private to the
 * run) behind a round-robin proxy, a steady mixed load, and one fault per phase: a replica
 * SIGKILLed mid-run, Redis restarted, PostgreSQL restarted (or its connections terminated), a
 * replica stopped with SIGTERM. It prints one row per phase and exits non-zero on any violation,
 * any RUNNING record left after the reaper's window, or any acknowledged write not read back.
 * Bounded in time and requests; loopback only; every process it starts is stopped.
 * What the figures mean: docs/operations.md#faults-and-the-soak.
 */
import { Cluster } from "./cluster.ts";
import { drain, faultPostgres, killMidRun, readBack, restartRedis, verdict } from "./faults.ts";
import { PrivateRedis, type SoakPostgres, soakPostgres, storeSize } from "./infra.ts";
import { startLoad, type Target } from "./load.ts";
import { Recorder, table } from "./record.ts";

const short = Deno.args.includes("--short");
const PHASE_MS = short ? 8_000 : 40_000;
const WORKERS = short ? 4 : 8;
const MAX_REQUESTS = short ? 20_000 : 250_000;
/** Heartbeat 1 s: a dead instance's runs are stale after 6 s and reaped within 9 s. */
const HEARTBEAT_SECONDS = 1;
/** The reaper's window with a margin: past it, no acknowledged run may still be RUNNING. */
const REAPER_WINDOW_MS = HEARTBEAT_SECONDS * 6_000 * 1.5 + 2_000;
/** The whole run, set-up and read-back included; past it the soak stops and fails. */
const BOUND_MS = short ? 300_000 : 900_000;

const log = (line: string) => console.log(`[soak] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cleanup: () => Promise<void> = () => Promise.resolve();
const guard = setTimeout(async () => {
  log(`over its bound of ${BOUND_MS} ms: stopping`);
  await cleanup();
  Deno.exit(3);
}, BOUND_MS);
Deno.addSignalListener("SIGINT", async () => {
  await cleanup();
  Deno.exit(130);
});

const redis = new PrivateRedis();
let pg: SoakPostgres | undefined;
let cluster: Cluster | undefined;
let closing: Promise<void> | undefined;
// One clean-up, however many ask for it (the time guard, a signal, the end of the run): each
// waits for the same one, so the process never exits half-way through it.
cleanup = () =>
  closing ??= (async () => {
    await cluster?.close().catch((e) => log(`closing replicas: ${e}`));
    await redis.stop().catch(() => {});
    await pg?.close().catch((e) => log(`closing PostgreSQL: ${e}`));
  })();

async function main(): Promise<number> {
  const t0 = performance.now();
  await redis.start();
  pg = await soakPostgres(log);
  const started = await Cluster.start(pg.url, redis.url, HEARTBEAT_SECONDS);
  cluster = started.cluster;
  const c = cluster;
  const rec = new Recorder();
  const begin = rec.begin.bind(rec);
  const size = storeSize(pg.url);
  rec.begin = (name: string) => {
    log(`${Math.round((performance.now() - t0) / 1000)} s: ${name}`);
    return begin(name);
  };
  // The store's size at each phase's end: steady load must not grow it without bound.
  const phaseEnd = async () => rec.current.store = await size.read();
  const t: Target = { base: () => c.proxy.url, content: started.content, recorder: rec };
  log(`three replicas behind ${c.proxy.url}; ${pg.fault} fault for PostgreSQL`);

  rec.begin("steady");
  const load = startLoad(t, WORKERS, MAX_REQUESTS);
  await sleep(PHASE_MS);
  await phaseEnd();
  rec.begin("replica SIGKILL mid-run");
  await killMidRun(c, t, 0);
  await sleep(PHASE_MS);
  await phaseEnd();
  rec.begin("Redis restart");
  await restartRedis(c, t, redis);
  await sleep(PHASE_MS);
  await phaseEnd();
  rec.begin(pg.fault === "restart" ? "PostgreSQL restart" : "PostgreSQL connections terminated");
  await faultPostgres(c, t, pg);
  await sleep(PHASE_MS);
  await phaseEnd();
  rec.begin("replica SIGTERM drain");
  log(`replica 2 drained in ${await drain(c, t, 2)} ms`);
  await sleep(PHASE_MS);
  await phaseEnd();
  await load.stop();

  log(`load stopped after ${load.issued} requests; reading every acknowledged write back`);
  await readBack(rec, t, pg.url, REAPER_WINDOW_MS);
  await size.close();

  console.log(
    `\nsoak (${short ? "short" : "full"} profile, ${WORKERS} clients, phases of ` +
      `${PHASE_MS / 1000} s, heartbeat ${HEARTBEAT_SECONDS} s, ` +
      `${Math.round((performance.now() - t0) / 1000)} s in all)\n`,
  );
  console.log(table(rec.phases));
  const { violations, runningLeft, lostWrites } = verdict(rec);
  for (const v of violations.slice(0, 30)) console.log(`  violation: ${v}`);
  if (violations.length > 30) console.log(`  … and ${violations.length - 30} more`);
  const failed = violations.length + runningLeft + lostWrites;
  console.log(
    failed === 0 ? "\nsoak passed" : `\nsoak FAILED: ${violations.length} violations, ` +
      `${runningLeft} RUNNING left, ${lostWrites} writes lost`,
  );
  const dir = await Deno.makeTempDir({ prefix: "soak_logs_" });
  await c.saveLogs(dir);
  console.log(`replica warnings and errors: ${dir}`);
  return failed === 0 ? 0 : 1;
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (e) {
  console.error(`[soak] aborted: ${(e as Error).stack ?? e}`);
} finally {
  clearTimeout(guard);
  await cleanup();
}
Deno.exit(exitCode);
