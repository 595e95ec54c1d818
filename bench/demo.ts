/**
 * First boot with the demo content (bench/demo.ts): a fresh embedded SQLite store and data
 * directory started through createRuntime with `service.demo.enabled` on, against the same first
 * boot with it off, median of 5 each, so the seed's share of a first start is measured in the
 * same run (target: the seed adds well under a second).
 */
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";

const ROUNDS = 5;

async function firstBoot(demo: boolean): Promise<number> {
  const dataDir = await Deno.makeTempDir({ prefix: "bench_demo_" });
  const env = { SERVICE_DATA_DIR: dataDir, SERVICE_DEMO_ENABLED: String(demo) };
  try {
    const started = performance.now();
    const rt = await createRuntime(resolveConfig(readSources(env), env), {
      env,
      logger: createLogger("error"),
    });
    const ms = performance.now() - started;
    await rt.close();
    return ms;
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

export async function demoBench(): Promise<void> {
  console.log(`\nfirst boot on an empty embedded store, with and without the demo content`);
  await firstBoot(true); // warm the module graph and DuckDB's native library
  const median = async (demo: boolean) => {
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) times.push(await firstBoot(demo));
    return times.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
  };
  const without = await median(false);
  const withDemo = await median(true);
  console.log(`without demo   ${without.toFixed(1).padStart(8)} ms`);
  console.log(`with demo      ${withDemo.toFixed(1).padStart(8)} ms`);
  console.log(
    `demo seed adds ${(withDemo - without).toFixed(1).padStart(8)} ms ` +
      `(ratio ${(withDemo / without).toFixed(1)}x; target: under 1000 ms added)`,
  );
}
