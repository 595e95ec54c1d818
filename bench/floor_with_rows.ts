/**
 * The bound under issue 13's speed targets, measured: the floor's bare handler (the same query)
 * that also stores what the spec keeps for every serve, with the waits a serve has
 * (`serveAround` in `serve_rows.ts`: a run's record, eleven frames with the first page, the final
 * record and the `endpoint.served` row, through the group commit on a fresh embedded store), and
 * answers `data_ready`'s payload. Nothing else of a serve runs: no key, no matching, no executor,
 * no result store. What this row costs beyond the floor is what keeping the spec's rows in the
 * embedded store's tables costs; what the endpoint costs beyond this row is the service's own. Each load runs
 * in its own process; the two handlers alternate, each measured at 50 clients (req/s, CPU per
 * request) and then 10 (p50).
 *
 *   deno run -A bench/floor_with_rows.ts [seconds, default 8] [rounds, default 2]
 */
import process from "node:process";
import postgres from "postgres";
import { ExecutionJournal } from "../src/executions/journal.ts";
import { addRunRows } from "../src/executions/test_fixtures.ts";
import { migrate } from "../src/store/mod.ts";
import { freshPostgresDatabase, freshStore } from "../tests/stores.ts";
import { QUERY, seedOrders } from "./endpoints.ts";
import { load } from "./load_client.ts";
import { serveAround } from "./serve_rows.ts";

const seconds = Number(Deno.args[0] ?? 8);
const rounds = Number(Deno.args[1] ?? 2);

const orders = await freshPostgresDatabase();
const store = await freshStore("sqlite");
const sql = postgres(orders.url, { max: 10, onnotice: () => {} });
const servers: Deno.HttpServer[] = [];
try {
  await seedOrders(orders.url);
  const db = await store.open();
  await migrate(db);
  const target = {
    store: db,
    journal: new ExecutionJournal(db, () => {}),
    ids: await addRunRows(db),
  };
  const handler = (keep: boolean) => async (req: Request) => {
    const id = Number(new URL(req.url).pathname.split("/").pop());
    if (!keep) return Response.json({ rows: await sql.unsafe(QUERY, [id]) });
    const answer = await serveAround(target, () => sql.unsafe(QUERY, [id]));
    return new Response(answer, { headers: { "content-type": "application/json" } });
  };
  const urls = [false, true].map((keep) => {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      handler(keep),
    );
    servers.push(server);
    return `http://127.0.0.1:${server.addr.port}/orders/42`;
  });
  const names = ["floor", "floor + the spec's rows"];
  for (const url of urls) await load(url, 2, 10);
  for (let round = 0; round < rounds; round++) {
    const rps: number[] = [];
    for (const [i, url] of urls.entries()) {
      const before = process.cpuUsage();
      const r = await load(url, seconds, 50);
      const cpu = process.cpuUsage(before);
      const p50 = (await load(url, Math.max(2, seconds / 2), 10)).p50_ms;
      rps.push(r.rps);
      console.log(
        `${names[i].padEnd(24)} ${r.rps.toFixed(0).padStart(5)} req/s  cpu ${
          ((cpu.user + cpu.system) / 1000 / Math.max(1, r.requests)).toFixed(3)
        } ms/req  p50 at 10 clients ${p50.toFixed(2)} ms  errors ${r.errors}`,
      );
    }
    console.log(`  with the rows / floor req/s: ${(rps[1] / rps[0]).toFixed(2)}`);
  }
} finally {
  for (const server of servers) await server.shutdown();
  await sql.end();
  await store.dispose();
  await orders.drop();
}
