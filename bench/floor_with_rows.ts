/**
 * The bound under issue 13's speed targets, measured: the floor's bare handler (the same query)
 * beside one that also stores what every serve keeps, with the waits a serve has (`serveAround` in
 * `serve_rows.ts`: a run's record, eleven frames with the first page, the final record and the
 * `endpoint.served` row, through the group commit on a fresh embedded store), and answers
 * `data_ready`'s payload. Nothing else of a serve runs: no key, no matching, no executor, no result
 * store. What the second costs beyond the floor is what keeping a serve's rows in the embedded
 * store's tables costs; what the endpoint costs beyond it is the service's own. Each load runs in
 * its own process; the two handlers alternate, each measured at 50 clients (req/s, CPU per request)
 * and then 10 (p50).
 *
 *   deno run -A bench/floor_with_rows.ts [seconds, default 8] [rounds, default 2]
 */
import postgres from "postgres";
import { ExecutionJournal } from "../src/executions/journal.ts";
import { addRunRows } from "../src/executions/test_fixtures.ts";
import { migrate } from "../src/store/mod.ts";
import { freshPostgresDatabase, freshStore } from "../tests/support/stores.ts";
import { floorServer, measured, QUERY, seedOrders } from "./endpoints.ts";
import { load } from "./load_client.ts";
import { serveAround } from "./serve_rows.ts";

const seconds = Number(Deno.args[0] ?? 8);
const rounds = Number(Deno.args[1] ?? 2);

const orders = await freshPostgresDatabase();
const store = await freshStore("sqlite");
const sql = postgres(orders.url, { max: 10, onnotice: () => {} });
let floor: ReturnType<typeof floorServer> | undefined;
let withRows: Deno.HttpServer<Deno.NetAddr> | undefined;
try {
  await seedOrders(orders.url);
  const db = await store.open();
  await migrate(db);
  const target = {
    store: db,
    journal: new ExecutionJournal(db, () => {}),
    ids: await addRunRows(db),
  };
  floor = floorServer(orders.url);
  withRows = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const id = Number(new URL(req.url).pathname.split("/").pop());
    const answer = await serveAround(target, () => sql.unsafe(QUERY, [id]));
    return new Response(answer, { headers: { "content-type": "application/json" } });
  });
  const rows = [
    { name: "floor", url: floor.url },
    { name: "floor + a serve's rows", url: `http://127.0.0.1:${withRows.addr.port}/orders/42` },
  ];
  for (const { url } of rows) await load(url, 2, 10);
  for (let round = 0; round < rounds; round++) {
    const rps: number[] = [];
    for (const { name, url } of rows) {
      const r = await measured(url, seconds, 50);
      const p50 = (await load(url, Math.max(2, seconds / 2), 10)).p50_ms;
      rps.push(r.rps);
      console.log(
        `${name.padEnd(24)} ${r.rps.toFixed(0).padStart(5)} req/s  cpu ${
          r.cpu_ms.toFixed(3)
        } ms/req  p50 at 10 clients ${p50.toFixed(2)} ms  errors ${r.errors}`,
      );
    }
    console.log(`  with the rows / floor req/s: ${(rps[1] / rps[0]).toFixed(2)}`);
  }
} finally {
  await withRows?.shutdown();
  await floor?.close();
  await sql.end();
  await store.dispose();
  await orders.drop();
}
