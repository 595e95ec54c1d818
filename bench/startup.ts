/**
 * Startup to `/ready`: from spawning `main.ts serve` to the first 200 of `/ready`, on the embedded
 * default and on PostgreSQL, each as a first boot (empty store: migrations, system actor) and as a
 * restart on the same store. The baseline, measured in the same run: `deno run` of a bare
 * Deno.serve script to its first answer, the floor any Deno service pays (runtime start, module
 * load). Median of RUNS each (target: the embedded restart < 1 s on a warm disk).
 */
import { testSecrets } from "../tests/support/harness.ts";
import { ServerProcess } from "../tests/support/server_process.ts";
import { skipUnless } from "../tests/support/services.ts";
import { freshPostgresDatabase } from "../tests/support/stores.ts";

const RUNS = Number(Deno.env.get("BENCH_STARTUP_RUNS") ?? 5);

const BARE = `Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) =>
  console.log(JSON.stringify({ message: "listening", url: "http://127.0.0.1:" + port })) },
  () => new Response("ok"));`;

async function untilOk(url: string): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Spawn to first 200 of `path`, in ms; the process is stopped afterwards. */
async function timed(start: () => ServerProcess, path: string): Promise<number> {
  const t0 = performance.now();
  const p = start();
  try {
    await p.ready;
    await untilOk(`${p.url}${path}`);
    return performance.now() - t0;
  } finally {
    await p.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function series(name: string, once: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  const m = median(times);
  console.log(
    `${name.padEnd(40)} ${m.toFixed(0).padStart(6)} ms  (min ${
      Math.min(...times).toFixed(0)
    }, max ${Math.max(...times).toFixed(0)})`,
  );
  return m;
}

export async function startupBench(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_bench_startup_" });
  const script = `${dir}/bare.ts`;
  await Deno.writeTextFile(script, BARE);
  const secrets = testSecrets();
  const quiet = { SERVICE_LOG_LEVEL: "info", SERVICE_DEMO_ENABLED: "false", ...secrets };
  const bareStart = () =>
    new ServerProcess({}, [], { program: [Deno.execPath(), "run", "--allow-all", script] });
  console.log(`\nstartup to /ready, median of ${RUNS} (spawn to first 200)`);
  try {
    const base = await series("baseline: bare Deno.serve script", () => timed(bareStart, "/"));
    const ratio = (ms: number) => `${(ms / base).toFixed(1)}x baseline`;
    let n = 0;
    const fresh = () => `${dir}/embedded_${n++}`;
    const first = await series(
      "embedded, first boot (empty data dir)",
      () => timed(() => new ServerProcess({ ...quiet, SERVICE_DATA_DIR: fresh() }), "/ready"),
    );
    const warmDir = fresh();
    await timed(() => new ServerProcess({ ...quiet, SERVICE_DATA_DIR: warmDir }), "/ready");
    const warm = await series(
      "embedded, restart (same data dir)",
      () => timed(() => new ServerProcess({ ...quiet, SERVICE_DATA_DIR: warmDir }), "/ready"),
    );
    console.log(
      `embedded: first boot ${ratio(first)}, restart ${ratio(warm)} (target restart < 1000 ms: ${
        warm < 1000 ? "met" : "MISSED"
      })`,
    );
    if (skipUnless("postgres")) return;
    const dbs: { drop(): Promise<void> }[] = [];
    try {
      const pgFirst = await series("PostgreSQL, first boot (empty database)", async () => {
        const db = await freshPostgresDatabase();
        dbs.push(db);
        const env = { ...quiet, SERVICE_STORE_URL: db.url, SERVICE_DATA_DIR: fresh() };
        return await timed(() => new ServerProcess(env), "/ready");
      });
      const db = await freshPostgresDatabase();
      dbs.push(db);
      const env = { ...quiet, SERVICE_STORE_URL: db.url, SERVICE_DATA_DIR: fresh() };
      await timed(() => new ServerProcess(env), "/ready");
      const pgWarm = await series(
        "PostgreSQL, restart (same database)",
        () => timed(() => new ServerProcess(env), "/ready"),
      );
      console.log(`PostgreSQL: first boot ${ratio(pgFirst)}, restart ${ratio(pgWarm)}`);
    } finally {
      for (const db of dbs) await db.drop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  await startupBench();
  Deno.exit(0);
}
