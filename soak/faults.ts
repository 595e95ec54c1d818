/**
 * The four faults and what is checked after them, shared by `deno task soak` and the regular
 * fault tests (tests/replica_faults_test.ts): each fault step injects its fault under whatever
 * load runs, waits until every replica answers /ready, and records that time on the current
 * phase; `readBack` fills each phase's RUNNING records left and acknowledged writes lost.
 */
import postgres from "postgres";
import type { Cluster } from "./cluster.ts";
import type { PrivateRedis, SoakPostgres } from "./infra.ts";
import { execute, type Target } from "./load.ts";
import type { Recorder } from "./record.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds from `since` until every replica answers /ready and is in the proxy's rotation. */
export async function untilAllReady(cluster: Cluster, since: number): Promise<number> {
  while (!(await cluster.allReady())) {
    if (performance.now() - since > 60_000) {
      throw new Error(`replicas not ready after 60 s: ${await cluster.readiness()}`);
    }
    await sleep(100);
  }
  return Math.round(performance.now() - since);
}

/**
 * Starts slow runs through the proxy until one runs on replica `index` (the others are
 * cancelled, which ends their streams); answers that run's id and the promise of its stream.
 */
export async function slowRunOn(t: Target, index: number) {
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

/** A replica SIGKILLed while a run is under way on it, then replaced. */
export async function killMidRun(cluster: Cluster, t: Target, index: number): Promise<void> {
  const caught = await slowRunOn(t, index);
  await sleep(500);
  const rec = t.recorder;
  rec.allowDrops = true;
  const since = performance.now();
  await cluster.replace(index, "SIGKILL");
  rec.current.readyAfterMs = await untilAllReady(cluster, since);
  rec.allowDrops = false;
  await caught.stream;
}

/** The shared Redis killed and started again empty, a second later. */
export async function restartRedis(cluster: Cluster, t: Target, redis: PrivateRedis) {
  const since = performance.now();
  await redis.stop();
  await sleep(1_000);
  await redis.start();
  t.recorder.current.readyAfterMs = await untilAllReady(cluster, since);
}

/** PostgreSQL restarted (a private cluster) or this database's connections terminated. */
export async function faultPostgres(cluster: Cluster, t: Target, pg: SoakPostgres) {
  const since = performance.now();
  await pg.inject();
  t.recorder.current.readyAfterMs = await untilAllReady(cluster, since);
}

/**
 * A replica stopped with SIGTERM while a run is under way on it: the run's stream must end with
 * `execution_aborted` (reason `shutdown`), in-flight calls must be answered, and the process
 * must exit 0 by itself; then it is replaced. Answers how long the drain took.
 */
export async function drain(cluster: Cluster, t: Target, index: number): Promise<number> {
  const rec = t.recorder;
  const draining = await slowRunOn(t, index);
  const since = performance.now();
  const { code, exitMs } = await cluster.replace(index, "SIGTERM");
  rec.current.readyAfterMs = await untilAllReady(cluster, since);
  const ending = await draining.stream;
  if (!/"reason":"shutdown"/.test(ending.text)) {
    rec.violation(`SIGTERM: the run on the drained replica did not end aborted (shutdown)`);
  }
  if (code !== 0) rec.violation(`SIGTERM: the drained replica exited ${code}`);
  return exitMs;
}

/**
 * After the load: waits (up to `windowMs`) for no acknowledged run to be RUNNING, then reads
 * every acknowledged write back: runs in the store, keys through the API's listing, pipelines
 * one by one through the API.
 */
export async function readBack(
  rec: Recorder,
  t: Target,
  url: string,
  windowMs: number,
): Promise<void> {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    const runs = rec.writes.filter((w) => w.kind === "execution").map((w) => w.id);
    const statuses = async () =>
      new Map(
        (await sql<{ id: string; status: string }[]>`
          SELECT id, status FROM executions WHERE id = ANY(${runs})`).map((r) => [r.id, r.status]),
      );
    const until = performance.now() + windowMs;
    let status = await statuses();
    while ([...status.values()].includes("RUNNING") && performance.now() < until) {
      await sleep(500);
      status = await statuses();
    }
    const keyIds = new Set((await keyListing(t)).map((k) => k.id));
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

/** The caller's keys, asked until a replica answers (the read-back is no part of the load). */
async function keyListing(t: Target): Promise<{ id: string }[]> {
  let last = "";
  for (let attempt = 0; attempt < 40; attempt++) {
    const res = await fetch(`${t.base()}/api/v1/auth/api-keys`, {
      headers: { ...t.content.session, accept: "application/json" },
    });
    const body = await res.json().catch(() => ({}));
    if (res.status === 200) return body.data.items;
    last = `${res.status} ${JSON.stringify(body).slice(0, 300)}`;
    await sleep(250);
  }
  throw new Error(`the key listing never answered 200: ${last}`);
}

/** Violations, RUNNING records left and writes lost over every phase. */
export function verdict(rec: Recorder) {
  return {
    violations: rec.phases.flatMap((p) => p.violations.map((v) => `${p.name}: ${v}`)),
    runningLeft: rec.phases.reduce((n, p) => n + (p.runningLeft ?? 0), 0),
    lostWrites: rec.phases.reduce((n, p) => n + (p.lostWrites ?? 0), 0),
  };
}
