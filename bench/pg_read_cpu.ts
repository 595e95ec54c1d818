/**
 * The POSTGRES connector's read alone (no HTTP, no execution): issue 13's query through
 * `query()` from 50 concurrent loops on a pool of 10, and the process's CPU per read, beside the
 * bare driver on the same query. For A/B work on the connector's read path.
 *
 * Each row of the output also counts socket writes to the server per read: every write is a
 * system call that runs the loopback TCP path too, the most expensive single step of a small
 * read. Without a URL, a fresh database with issue 13's table at 100,000 rows is made and dropped.
 *
 *   deno run -A bench/pg_read_cpu.ts [postgres url with an orders table | ""] [seconds] [bare|rw|ro]
 */
import net from "node:net";
import process from "node:process";
import postgres from "postgres";
import { connectorConfig, openConnector } from "../src/datasources/mod.ts";
import type { Connector } from "../src/datasources/mod.ts";
import { freshPostgresDatabase } from "../tests/support/stores.ts";
import { seedOrders } from "./endpoints.ts";

const given = Deno.args[0];
const fresh = given ? undefined : await freshPostgresDatabase();
const url = given || fresh!.url;
if (fresh) await seedOrders(url, 100_000, 2_000);
const seconds = Number(Deno.args[1] ?? 4);
const QUERY = "select * from orders where customer_id = :customer_id limit 100";

let writes = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
  writes++;
  return (write as (...a: unknown[]) => boolean).apply(this, args);
} as typeof write;

async function loops(run: (id: number) => Promise<number>) {
  let reads = 0;
  const writesBefore = writes;
  let rows = 0;
  const until = performance.now() + seconds * 1000;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 50 }, async (_, k) => {
    while (performance.now() < until) {
      const n = await run(1 + ((reads + k) % 2000));
      rows += n;
      reads++;
    }
  }));
  const cpu = process.cpuUsage(before);
  return {
    reads,
    rows,
    ms: (cpu.user + cpu.system) / 1000 / reads,
    writes: (writes - writesBefore) / reads,
  };
}

async function viaConnector(readOnly: boolean) {
  const u = new URL(url);
  const c = openConnector(
    connectorConfig("POSTGRES", `jdbc:postgresql://${u.hostname}:${u.port || 5432}${u.pathname}`, {
      hikari: { maximumPoolSize: 10 },
    }),
  ) as Connector;
  const once = async (id: number) => {
    const stream = await c.query({ sql: QUERY, params: { customer_id: id } }, { readOnly });
    let n = 0;
    for await (const batch of stream) n += batch.length;
    return n;
  };
  try {
    await loops(once);
    return await loops(once);
  } finally {
    await c.close();
  }
}

async function bare() {
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  const once = async (id: number) =>
    (await sql.unsafe("select * from orders where customer_id = $1 limit 100", [id])).length;
  try {
    await loops(once);
    return await loops(once);
  } finally {
    await sql.end();
  }
}

const which = Deno.args[2] ?? "all";
const report = (
  name: string,
  r: { reads: number; rows: number; ms: number; writes: number },
) =>
  console.log(
    `${name.padEnd(10)} ${r.ms.toFixed(3)} ms CPU/read  ${
      r.writes.toFixed(2)
    } writes/read  (${r.reads} reads, ${r.rows} rows)`,
  );
if (which === "all" || which === "bare") report("bare", await bare());
if (which === "all" || which === "rw") report("readwrite", await viaConnector(false));
if (which === "all" || which === "ro") report("readonly", await viaConnector(true));
await fresh?.drop();
Deno.exit(0);
