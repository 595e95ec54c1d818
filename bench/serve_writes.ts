/**
 * The metadata-store writes of one published-endpoint serve, alone: a run's record, its eleven
 * frames (six progress samples, a ~4 KB data_ready), its final record and its `endpoint.served`
 * audit row, through the instance's group commit on a fresh SQLite (or PostgreSQL) store, waves
 * of `concurrency` runs at once so a batch holds several runs' rows as under load. Prints CPU ms
 * per run: an A/B probe for the write path, steadier than the whole serve (bench/endpoint_cpu.ts).
 * Environment, for experiments: SETUP (statements run first, `;`-separated, e.g. a DROP INDEX),
 * NOOP=1 (a store that writes nothing: the probe's own floor), CHUNK=1 (each phase's frames as one
 * row of an `execution_chunks` table the probe makes: what a chunked journal could save at most,
 * since it skips the per-frame queue entries too). On SQLite it also prints the database's pages.
 *
 *   deno run -A bench/serve_writes.ts [runs] [concurrency] [sqlite|postgres]
 */
import process from "node:process";
import { ExecutionJournal } from "../src/executions/journal.ts";
import { addRunRows } from "../src/executions/test_fixtures.ts";
import { migrate } from "../src/store/mod.ts";
import { freshStore, type StoreKind } from "../tests/support/stores.ts";
import { NO_STORE, ORDER_ROWS, serveRows } from "./serve_rows.ts";

const runs = Number(Deno.args[0] ?? 3000);
const concurrency = Number(Deno.args[1] ?? 24);
const kind = (Deno.args[2] ?? "sqlite") as StoreKind;

const store = await freshStore(kind);
const db = await store.open();
await migrate(db);
const ids = await addRunRows(db);
for (const q of (Deno.env.get("SETUP") ?? "").split(";").filter(Boolean)) await db.execute(q);
// CHUNK=1, an experiment: the frames of one phase (one batch) as one row of a chunk table.
const chunked = Boolean(Deno.env.get("CHUNK"));
if (chunked) {
  await db.execute(`CREATE TABLE execution_chunks (
    execution_id TEXT NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
    first_event_id INTEGER NOT NULL, last_event_id INTEGER NOT NULL, frames TEXT NOT NULL,
    observed_at TEXT NOT NULL, PRIMARY KEY (execution_id, first_event_id))`);
}
const target = Deno.env.get("NOOP") ? NO_STORE : db;
const journal = new ExecutionJournal(target, () => {});
const serve = () => serveRows({ store: target, journal, ids, chunked }, ORDER_ROWS);

async function wave(n: number) {
  await Promise.all(Array.from({ length: n }, serve));
}

try {
  for (let i = 0; i < 20; i++) await wave(concurrency);
  const before = process.cpuUsage();
  const t0 = performance.now();
  for (let done = 0; done < runs; done += concurrency) await wave(concurrency);
  const cpu = process.cpuUsage(before);
  const ms = performance.now() - t0;
  console.log(
    `${kind}: ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms CPU per serve (user ${
      (cpu.user / 1000 / runs).toFixed(3)
    }, system ${(cpu.system / 1000 / runs).toFixed(3)}), ${(ms / runs).toFixed(3)} ms wall ` +
      `(window ${t0.toFixed(0)}-${(t0 + ms).toFixed(0)} ms for cpuprofile_top.ts)`,
  );
  if (kind === "sqlite") {
    const pages = await db.first<{ n: number }>("SELECT page_count AS n FROM pragma_page_count");
    console.log(`database: ${pages?.n} pages`);
  }
} finally {
  await store.dispose();
}
