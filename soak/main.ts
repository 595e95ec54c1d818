/**
 * `deno task soak [--short]`: three replicas on one PostgreSQL and one Redis (both private to the
 * run) behind a round-robin proxy, a steady mixed load, and one fault per phase: a replica
 * SIGKILLed mid-run, Redis restarted, PostgreSQL restarted (or its connections terminated), a
 * replica stopped with SIGTERM. It prints one row per phase and exits non-zero on any violation,
 * any RUNNING record left after the reaper's window, or any acknowledged write not read back.
 * Bounded in time and requests; loopback only; every process it starts is stopped.
 * What the figures mean: docs/operations.md#faults-and-the-soak.
 */
import postgres from "postgres";
import { Cluster } from "./cluster.ts";
import { PrivateRedis, type SoakPostgres, soakPostgres } from "./infra.ts";
import { execute, startLoad, type Target } from "./load.ts";
import { Recorder, table } from "./record.ts";

const short = Deno.args.includes("--short");
const PHASE_MS = short ? 8_000 : 40_000;
const WORKERS = short ? 4 : 8;
const MAX_REQUESTS = short ? 20_000 : 250_000;
/** Heartbeat 1 s: a dead instance's runs are stale after 6 s and reaped within 9 s. */
const HEARTBEAT_SECONDS = 1;
const REAPER_WINDOW_MS = HEARTBEAT_SECONDS * 6_000 * 1.5 + 2_000;
/** The whole run, set-up and read-back included; past it the soak stops and fails. */
const BOUND_MS = short ? 170_000 : 600_000;

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
let closed = false;
cleanup = async () => {
  if (closed) return;
  closed = true;
  await cluster?.close().catch((e) => log(`closing replicas: ${e}`));
  await redis.stop().catch(() => {});
  await pg?.close().catch((e) => log(`closing PostgreSQL: ${e}`));
};

async function untilAllReady(since: number): Promise<number> {
  while (!(await cluster!.allReady())) {
    if (performance.now() - since > 60_000) throw new Error("replicas not ready after 60 s");
    await sleep(100);
  }
  return Math.round(performance.now() - since);
}

/**
 * Starts slow runs through the proxy until one runs on replica `index` (the others are
 * cancelled, which ends their streams); answers that run's id and the promise of its stream.
 */
async function slowRunOn(t: Target, index: number) {
  for (let attempt = 0; attempt < 20; attempt++) {
    let started!: (v: { id: string; upstream: string | null }) => void;
    const onStarted = new Promise<{ id: string; upstream: string | null }>((r) => started = r);
    const stream = execute(t, t.content.slowPipeline, (id, upstream) => started({ id, upstream }));
    const first = await Promise.race([onStarted, stream.then(() => undefined)]);
    if (!first) continue;
    if (first.upstream === `${index}`) return { id: first.id, stream };
    const res = await fetch(`${t.base()}/api/v1/executions/${first.id}`, {
      method: "DELETE",
      headers: { "SVC-API-Key": t.content.key },
    });
    await res.body?.cancel();
    await stream;
  }
  throw new Error(`no slow run landed on replica ${index}`);
}

async function readBack(rec: Recorder, t: Target, url: string): Promise<void> {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    const runs = rec.writes.filter((w) => w.kind === "execution").map((w) => w.id);
    const rows = await sql<{ id: string; status: string }[]>`
      SELECT id, status FROM executions WHERE id = ANY(${runs})`;
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const keys = await fetch(`${t.base()}/api/v1/auth/api-keys`, {
      headers: { ...t.content.session, accept: "application/json" },
    });
    const keyIds = new Set(((await keys.json()).data.items as { id: string }[]).map((k) => k.id));
    const pipelines = rec.writes.filter((w) => w.kind === "pipeline");
    const found = new Set<string>();
    for (let i = 0; i < pipelines.length; i += 8) {
      await Promise.all(
        pipelines.slice(i, i + 8).map(async ({ id }) => {
          const res = await fetch(`${t.base()}/api/v1/pipelines/${id}`, {
            headers: { ...t.content.session, accept: "application/json" },
          });
          await res.body?.cancel();
          if (res.status === 200) found.add(id);
        }),
      );
    }
    for (const p of rec.phases) {
      p.runningLeft = [...p.started].filter((id) => status.get(id) === "RUNNING").length;
      p.endedInStore = [...p.started].filter((id) => (status.get(id) ?? "RUNNING") !== "RUNNING")
        .length;
      p.lostWrites = rec.writes.filter((w) =>
        w.phase === p && (
          (w.kind === "execution" && !status.has(w.id)) ||
          (w.kind === "api_key" && !keyIds.has(w.id)) ||
          (w.kind === "pipeline" && !found.has(w.id))
        )
      ).length;
    }
  } finally {
    await sql.end();
  }
}

async function main(): Promise<number> {
  const t0 = performance.now();
  await redis.start();
  pg = await soakPostgres(log);
  const started = await Cluster.start(pg.url, redis.url, HEARTBEAT_SECONDS);
  cluster = started.cluster;
  const rec = new Recorder();
  const t: Target = { base: () => cluster!.proxy.url, content: started.content, recorder: rec };
  log(`three replicas behind ${cluster.proxy.url}; ${pg.fault} fault for PostgreSQL`);

  rec.begin("steady");
  const load = startLoad(t, WORKERS, MAX_REQUESTS);
  await sleep(PHASE_MS);

  const killed = rec.begin("replica SIGKILL mid-run");
  const caught = await slowRunOn(t, 0);
  await sleep(500);
  rec.allowDrops = true;
  let since = performance.now();
  await cluster.replace(0, "SIGKILL");
  killed.readyAfterMs = await untilAllReady(since);
  rec.allowDrops = false;
  await caught.stream;
  await sleep(PHASE_MS);

  const redisPhase = rec.begin("Redis restart");
  since = performance.now();
  await redis.stop();
  await sleep(1_000);
  await redis.start();
  redisPhase.readyAfterMs = await untilAllReady(since);
  await sleep(PHASE_MS);

  const pgPhase = rec.begin(
    pg.fault === "restart" ? "PostgreSQL restart" : "PostgreSQL connections terminated",
  );
  since = performance.now();
  await pg.inject();
  pgPhase.readyAfterMs = await untilAllReady(since);
  await sleep(PHASE_MS);

  const drained = rec.begin("replica SIGTERM drain");
  const draining = await slowRunOn(t, 2);
  since = performance.now();
  const { code, exitMs } = await cluster.replace(2, "SIGTERM");
  log(`replica 2 drained and exited ${code} in ${exitMs} ms`);
  drained.readyAfterMs = await untilAllReady(since);
  const ending = await draining.stream;
  if (!/"reason":"shutdown"/.test(ending.text)) {
    rec.violation(`SIGTERM: the run on the drained replica did not end aborted (shutdown)`);
  }
  if (code !== 0) rec.violation(`SIGTERM: the drained replica exited ${code}`);
  await sleep(PHASE_MS);
  await load.stop();

  log(`load stopped after ${load.issued} requests; waiting ${REAPER_WINDOW_MS} ms for the reaper`);
  await sleep(REAPER_WINDOW_MS);
  await readBack(rec, t, pg.url);

  console.log(
    `\nsoak (${short ? "short" : "full"} profile, ${WORKERS} clients, phases of ` +
      `${PHASE_MS / 1000} s, heartbeat ${HEARTBEAT_SECONDS} s, ` +
      `${Math.round((performance.now() - t0) / 1000)} s in all)\n`,
  );
  console.log(table(rec.phases));
  const violations = rec.phases.flatMap((p) => p.violations.map((v) => `${p.name}: ${v}`));
  const left = rec.phases.reduce((n, p) => n + (p.runningLeft ?? 0), 0);
  const lost = rec.phases.reduce((n, p) => n + (p.lostWrites ?? 0), 0);
  for (const v of violations.slice(0, 30)) console.log(`  violation: ${v}`);
  if (violations.length > 30) console.log(`  … and ${violations.length - 30} more`);
  const failed = violations.length + left + lost;
  console.log(
    failed === 0
      ? "\nsoak passed"
      : `\nsoak FAILED: ${violations.length} violations, ${left} RUNNING left, ${lost} writes lost`,
  );
  if (failed) {
    const dir = await Deno.makeTempDir({ prefix: "soak_logs_" });
    await cluster!.saveLogs(dir);
    console.log(`replica warnings and errors: ${dir}`);
  }
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
