/**
 * `deno task growth [N]`: the bytes the metadata store keeps per endpoint serve and per REST run,
 * on SQLite and on PostgreSQL: N calls of the published demo `demo/top_customers` with an API key
 * over HTTP (or N executions over REST), then the retention sweeps past the replay window and past
 * the record retention (tests/support/growth.ts). docs/operations.md quotes its output.
 */
import {
  growthWorld,
  PAST_REPLAY_WINDOW,
  PAST_RETENTION,
  type StoreSize,
} from "../tests/support/growth.ts";
import { STORE_KINDS } from "../tests/support/stores.ts";

const n = Number(Deno.args[0] ?? 1000);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

async function measure(kind: (typeof STORE_KINDS)[number], what: "serve" | "run") {
  const w = await growthWorld(kind);
  try {
    const before = await w.size();
    const at = (label: string, size: StoreSize) =>
      console.log(
        `| ${kind} | ${what} | ${label} | ${size.executions} | ${size.events} | ` +
          `${kb((size.tableBytes - before.tableBytes) / n)} | ` +
          `${kb((size.auditBytes - before.auditBytes) / n)} | ` +
          (size.fileBytes === undefined ? "" : `${(size.fileBytes / 1048576).toFixed(1)} MB`) +
          " |",
      );
    at("before", before);
    if (what === "serve") await w.serve(n);
    else await w.run(n);
    at(`after ${n}`, await w.size());
    // PostgreSQL: VACUUM FULL, to read the compact size (autovacuum reuses the space instead).
    await w.sweep(PAST_REPLAY_WINDOW, "full");
    at("past the replay window", await w.size());
    await w.sweep(PAST_RETENTION, "full");
    at("past the record retention", await w.size());
  } finally {
    await w.close();
  }
}

console.log(
  `| store | what | when | executions | event rows | executions tables, each | audit_log, each | SQLite file |`,
);
console.log("|---|---|---|---|---|---|---|---|");
for (const kind of STORE_KINDS) {
  for (const what of ["serve", "run"] as const) await measure(kind, what);
}
