/**
 * Pipeline authoring figures on the embedded SQLite store, each beside a baseline measured in the
 * same run:
 *  1. saving a 200-node pipeline draft through the service (parse, graph and reference checks,
 *     canonical hash, the conditional write, pins and references) vs a bare UPDATE of the same
 *     version row with the same text (target: p50 <= 50 ms);
 *  2. one folder level of 10,000 pipelines (`GET /pipelines?prefix=`'s service call) vs a bare
 *     SELECT of the same page of index rows (target: p50 <= 20 ms).
 */
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { canonicalJson, hashCanonical } from "../src/lib/canonical_json.ts";
import { newId } from "../src/lib/ids.ts";
import { createLogger } from "../src/lib/log.ts";
import { nowIso } from "../src/lib/time.ts";
import { createRuntime } from "../src/runtime.ts";
import { seedRoles } from "../tests/support/access_fixtures.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 40);

async function p50(rounds: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** 199 staging nodes in a chain and one caller node at the end. */
function bigBody(tag: number) {
  const nodes = Array.from({ length: 200 }, (_, i) => ({
    id: `n${i}`,
    type: "DQL",
    source: "tempdb",
    sql: `SELECT ${i} AS x, '${tag}' AS tag`,
    ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}),
    ...(i < 199 ? { output: { target: "tempdb", table: `t${i}` } } : {}),
  }));
  return { name: "bench/big", description: `round ${tag}`, nodes };
}

export async function pipelineBench() {
  const dataDir = await Deno.makeTempDir({ prefix: "svc_bench_pl_" });
  const env = { SERVICE_DATA_DIR: dataDir, SERVICE_HTTP_PORT: "0", SERVICE_LOG_LEVEL: "warn" };
  const runtime = await createRuntime(resolveConfig(readSources(env), env), {
    env,
    logger: createLogger("warn"),
  });
  try {
    const f = await seedRoles(runtime);
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const svc = runtime.pipelines;
    const db = runtime.db;

    let view = await svc.create(ctx, bigBody(0));
    const id = String(view.id);
    const save = await p50(ROUNDS, async (i) => {
      view = await svc.update(ctx, id, String(view.body_hash), bigBody(i + 1));
    });
    const bare = await p50(ROUNDS, async (i) => {
      const text = canonicalJson(bigBody(i + 1000));
      await db.transaction((tx) =>
        tx.execute(
          "UPDATE pipeline_versions SET body = $2, body_hash = $3, updated_at = $4 WHERE pipeline_id = $1 AND version = 1",
          [id, text, hashCanonical(text), nowIso()],
        )
      );
    });

    // 10,000 pipelines: 20 top folders × 10 sub-folders × 50 pipelines.
    await db.transaction(async (tx) => {
      const now = nowIso();
      const body = canonicalJson({
        name: "x/y",
        nodes: [{ id: "a", type: "DQL", sql: "SELECT 1" }],
      });
      for (let i = 0; i < 10_000; i++) {
        const pid = newId();
        const name = `f${i % 20}/g${Math.floor(i / 20) % 10}/p${i}`;
        await tx.execute(
          `INSERT INTO pipelines (id, workspace_id, name, owner_id, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $5)`,
          [pid, f.workspace.id, name, f.users.author.principal.userId, now],
        );
        await tx.execute(
          `INSERT INTO pipeline_versions (pipeline_id, version, status, body, body_hash, created_by,
             created_at, updated_by, updated_at) VALUES ($1, 1, 'DRAFT', $2, $3, $4, $5, $4, $5)`,
          [pid, body, hashCanonical(body), f.users.author.principal.userId, now],
        );
      }
    });
    const page = { offset: 0, limit: 50 };
    const folder = await p50(ROUNDS, () => svc.folder(f.workspace.id, "f3/g4", page));
    const root = await p50(ROUNDS, () => svc.folder(f.workspace.id, "", page));
    const select = await p50(ROUNDS, () =>
      db.query(
        `SELECT id, name, display_name, current_version FROM pipelines
          WHERE workspace_id = $1 AND name LIKE 'f3/g4/%' ORDER BY name LIMIT 50`,
        [f.workspace.id],
      ));

    const line = (label: string, ms: number, base: number, target: number) =>
      console.log(
        `${label.padEnd(34)} ${ms.toFixed(2).padStart(8)} ms  ${
          (ms / base).toFixed(1).padStart(6)
        }x baseline  (target <= ${target} ms: ${ms <= target ? "met" : "MISSED"})`,
      );
    console.log(`\npipeline authoring on SQLite, p50 of ${ROUNDS}`);
    console.log(`${"bare UPDATE of the same row".padEnd(34)} ${bare.toFixed(2).padStart(8)} ms`);
    line("save a 200-node draft", save, bare, 50);
    console.log(`${"bare SELECT of one page".padEnd(34)} ${select.toFixed(2).padStart(8)} ms`);
    line("folder page f3/g4 (50 of 10,000)", folder, select, 20);
    line("folder page root (20 folders)", root, select, 20);
  } finally {
    await runtime.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) await pipelineBench();
