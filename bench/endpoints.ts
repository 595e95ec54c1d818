/**
 * A published endpoint over a PostgreSQL table of 1,000,000 rows (issue 13's benchmark):
 * `select * from orders where customer_id = :customer_id limit 100`, index on customer_id, pool
 * 10, 50 concurrent clients over loopback for 10 s after a warm-up, side by side in one run with
 *  (a) the raw `postgres` driver running the same query (no HTTP), and
 *  (b) a minimal `Deno.serve` handler running it and answering the same JSON (the floor).
 * Prints req/s, p50, p99 and server CPU ms per request for each, the ratios, and the p50 overhead
 * over the floor at 10 clients (and, for a lone caller, at one). Targets: endpoint >= 0.7x the
 * floor's req/s; p50 overhead <= 2 ms at 10 clients. With `--peer`, a third row: Platformatic
 * DB on the same table (see endpoints_peer.ts); the endpoint should beat it on req/s and on CPU
 * per request.
 */
import process from "node:process";
import postgres from "postgres";
import { seedRoles, sessionHeaders, userKey } from "../tests/support/access_fixtures.ts";
import { call, startTestServer, type TestServer } from "../tests/support/harness.ts";
import { freshPostgresDatabase } from "../tests/support/stores.ts";
import { installPeer, type Peer, startPeer } from "./endpoints_peer.ts";
import { load } from "./load_client.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 10);
const ROWS = 1_000_000;
const CUSTOMERS = 20_000;

/** A load run with this process's CPU time per request (the server runs in this process). */
export async function measured(url: string, seconds: number, concurrency: number, headers = {}) {
  const before = process.cpuUsage();
  const result = await load(url, seconds, concurrency, headers);
  const cpu = process.cpuUsage(before);
  return { ...result, cpu_ms: (cpu.user + cpu.system) / 1000 / Math.max(1, result.requests) };
}

export async function seedOrders(url: string, rows = ROWS, customers = CUSTOMERS): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE TABLE orders (
      order_id bigint PRIMARY KEY, customer_id integer NOT NULL, placed_at timestamptz NOT NULL,
      status text NOT NULL, amount numeric(12,2) NOT NULL)`);
    await sql.unsafe(`INSERT INTO orders
      SELECT g, (g % ${customers}) + 1, now() - (g || ' minutes')::interval,
             (ARRAY['new','paid','shipped','done'])[1 + g % 4], (g % 10000) / 100.0
      FROM generate_series(1, ${rows}) g`);
    await sql.unsafe("CREATE INDEX orders_customer ON orders (customer_id)");
    // Vacuumed and checkpointed here, as a table long in service would be: otherwise setting hint
    // bits and writing back the seed's pages fall inside the measured window, and runs differed.
    await sql.unsafe("VACUUM (ANALYZE) orders");
    await sql.unsafe("CHECKPOINT");
  } finally {
    await sql.end();
  }
}

export const QUERY = "select * from orders where customer_id = $1 limit 100";

/** (a) The raw driver: concurrent loops of the same query for `seconds`, no HTTP. */
async function rawDriver(url: string, seconds: number, concurrency: number) {
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  try {
    await sql.unsafe(QUERY, [42]);
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    const before = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await sql.unsafe(QUERY, [42]);
        latencies.push(performance.now() - t);
      }
    }));
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(before);
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      rps: latencies.length / elapsed,
      p50_ms: latencies[Math.floor(latencies.length / 2)],
      p99_ms: latencies[Math.floor(latencies.length * 0.99)],
      cpu_ms: (cpu.user + cpu.system) / 1000 / latencies.length,
    };
  } finally {
    await sql.end();
  }
}

/** (b) The floor: a bare handler that runs the query and answers its rows as JSON. */
export function floorServer(url: string) {
  const sql = postgres(url, { max: 10, onnotice: () => {} });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const id = Number(new URL(req.url).pathname.split("/").pop());
    const rows = await sql.unsafe(QUERY, [id]);
    return Response.json({ rows });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/orders/42`,
    async close() {
      await server.shutdown();
      await sql.end();
    },
  };
}

/** Creates a pipeline from `body` and releases it; answers its id. */
export async function releasedPipeline(
  s: TestServer,
  h: Record<string, string>,
  body: object,
): Promise<string> {
  const created = await call(s, "POST", "/api/v1/pipelines", h, body);
  if (created.status !== 201) throw new Error(`pipeline: ${JSON.stringify(created.body)}`);
  const { id, body_hash } = created.body.data;
  const r = await call(s, "POST", `/api/v1/pipelines/${id}/release`, {
    ...h,
    "if-match": body_hash,
  });
  if (r.status !== 200) throw new Error(`release: ${JSON.stringify(r.body)}`);
  return id;
}

/** The bench's server with `/orders/{customer_id}` published over a fresh 1,000,000-row table. */
export async function publishedOrders(env: Record<string, string> = {}) {
  const db = await freshPostgresDatabase();
  const s = await startTestServer({
    env: {
      SERVICE_LOG_LEVEL: "warn",
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000000",
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000000",
      SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "1000",
      ...env,
    },
    // As in production: the tests' answer check parsed each body again (~80 KB and more a serve).
    runtime: { checkResponses: false },
  });
  const close = async () => {
    await s.close();
    await db.drop();
  };
  try {
    await seedOrders(db.url);
    const f = await seedRoles(s.runtime);
    const admin = f.users.super_admin;
    const h = await sessionHeaders(s.runtime, admin, f.workspace.name);
    const dbName = new URL(db.url).pathname.slice(1);
    const made = await call(s, "POST", "/api/v1/datasources", h, {
      name: "orders_pg",
      dialect: "POSTGRES",
      jdbc_url: `jdbc:postgresql://127.0.0.1:5432/${dbName}`,
      username: "postgres",
      password: "unused-with-trust-auth",
      readonly: true,
      properties: { hikari: { maximumPoolSize: 10 } },
    });
    if (made.status !== 201) throw new Error(`datasource: ${JSON.stringify(made.body)}`);
    const id = await releasedPipeline(s, h, {
      name: "bench/orders",
      parameters: { customer_id: { type: "integer", required: true } },
      nodes: [{
        id: "orders",
        type: "DQL",
        source: "orders_pg",
        sql: "select * from orders where customer_id = :customer_id limit 100",
      }],
    });
    const published = await call(s, "POST", "/api/v1/endpoints", h, {
      path_pattern: "/orders/{customer_id}",
      pipeline_id: id,
    });
    if (published.status !== 201) throw new Error(`publish: ${JSON.stringify(published.body)}`);
    // A member's key, as a real caller holds: a super admin acting without membership would add
    // an \`auth.super_admin_acting\` audit row to every request.
    const key = await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read", "execute"]);
    const headers = { "SVC-API-Key": key };
    const endpointUrl = `${s.url}/api/x/orders/42`;
    const probe = await fetch(endpointUrl, { headers });
    if (probe.status !== 200) throw new Error(`serve: ${probe.status} ${await probe.text()}`);
    await probe.arrayBuffer();
    const executeUrl = `${s.url}/api/v1/pipelines/${id}/execute`;
    return { db, server: s, endpointUrl, executeUrl, headers, close };
  } catch (e) {
    await close();
    throw e;
  }
}

export async function endpointBench(): Promise<void> {
  const { db, endpointUrl, executeUrl, headers, close } = await publishedOrders();
  const floor = floorServer(db.url);
  try {
    await load(endpointUrl, 2, 10, headers); // warm-up
    await load(floor.url, 2, 10);
    const endpoint = await measured(endpointUrl, SECONDS, 50, headers);
    const bare = await measured(floor.url, SECONDS, 50);
    const raw = await rawDriver(db.url, SECONDS, 50);
    const peer = Deno.args.includes("--peer") ? await peerRow(db.url) : null;
    const endpoint10 = await measured(endpointUrl, Math.max(3, SECONDS / 2), 10, headers);
    const bare10 = await measured(floor.url, Math.max(3, SECONDS / 2), 10);
    // One request at a time: what a lone caller waits, with no other request to share a commit.
    const endpoint1 = await measured(endpointUrl, 3, 1, headers);
    const bare1 = await measured(floor.url, 3, 1);
    // The same read run through POST …/execute with its event stream, to its data_ready frame,
    // against the bare query on the raw driver, one at a time.
    const execute1 = await toDataReady(executeUrl, headers, 3);
    const raw1 = await rawDriver(db.url, 3, 1);

    const row = (
      name: string,
      r: { rps: number; p50_ms: number; p99_ms: number; cpu_ms: number },
    ) =>
      console.log(
        `  ${name.padEnd(36)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${
          r.p50_ms.toFixed(2).padStart(7)
        } ms  p99 ${r.p99_ms.toFixed(2).padStart(7)} ms  cpu ${
          r.cpu_ms.toFixed(2).padStart(6)
        } ms/req`,
      );
    console.log(
      `\nPublished endpoint over ${
        ROWS.toLocaleString("en")
      } PostgreSQL rows, 50 clients, ${SECONDS} s`,
    );
    row("GET /api/x/orders/42 (with a key)", endpoint);
    row("(b) bare Deno.serve + postgres", bare);
    row("(a) raw postgres driver, no HTTP", raw);
    if (peer && "rps" in peer) row("(peer) Platformatic DB, GET /orders", peer);
    if (peer && "error" in peer) console.log(`  (peer) not measured: ${peer.error}`);
    console.log(
      `  endpoint / floor req/s              ${
        (endpoint.rps / bare.rps).toFixed(2).padStart(8)
      }  (target >= 0.7)`,
    );
    if (peer && "rps" in peer) {
      console.log(
        `  endpoint / peer req/s, cpu/req       ${
          (endpoint.rps / peer.rps).toFixed(2).padStart(8)
        }, ${(endpoint.cpu_ms / peer.cpu_ms).toFixed(2)}  (target: > 1 and < 1)`,
      );
    }
    console.log(
      `  floor / raw driver req/s            ${(bare.rps / raw.rps).toFixed(2).padStart(8)}`,
    );
    console.log(
      `  p50 overhead over the floor, 10 clients ${
        (endpoint10.p50_ms - bare10.p50_ms).toFixed(2).padStart(5)
      } ms (target <= 2; endpoint ${endpoint10.p50_ms.toFixed(2)}, floor ${
        bare10.p50_ms.toFixed(2)
      })`,
    );
    console.log(
      `  p50 overhead over the floor, 1 client   ${
        (endpoint1.p50_ms - bare1.p50_ms).toFixed(2).padStart(5)
      } ms (endpoint ${endpoint1.p50_ms.toFixed(2)}, floor ${bare1.p50_ms.toFixed(2)})`,
    );
    console.log(
      `  execute to data_ready over the bare query, 1 client ${
        (execute1.p50_ms - raw1.p50_ms).toFixed(2).padStart(5)
      } ms (target <= 2; execute ${execute1.p50_ms.toFixed(2)}, raw driver ${
        raw1.p50_ms.toFixed(2)
      }${execute1.errors ? `, ${execute1.errors} errors` : ""})`,
    );
    if (endpoint.errors || bare.errors) {
      console.log(`  errors: endpoint ${endpoint.errors}, floor ${bare.errors}`);
    }
  } finally {
    await floor.close();
    await close();
  }
}

/**
 * One client posting executions with an event stream for `seconds`: the time from the request to
 * its `data_ready` frame, read as it arrives (the stream's later frames are not waited for).
 */
async function toDataReady(url: string, headers: Record<string, string>, seconds: number) {
  const h = { ...headers, accept: "text/event-stream", "content-type": "application/json" };
  const body = JSON.stringify({ parameters: { customer_id: 42 } });
  const latencies: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const t = performance.now();
    const res = await fetch(url, { method: "POST", headers: h, body });
    let seen = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      seen += decoder.decode(chunk, { stream: true });
      if (seen.includes("event: data_ready")) break;
    }
    // Leaving the loop early cancels the rest of the stream.
    if (res.status !== 200 || !seen.includes("event: data_ready")) errors++;
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  return { p50_ms: latencies[Math.floor(latencies.length / 2)], errors };
}

/** The `--peer` row: Platformatic DB on the same table (bench/endpoints_peer.ts). */
async function peerRow(databaseUrl: string) {
  let peer: Peer | undefined;
  try {
    peer = await startPeer(await installPeer(), databaseUrl);
    await load(peer.url, 2, 10);
    const before = await peer.cpuSeconds();
    const result = await load(peer.url, SECONDS, 50);
    const cpu = await peer.cpuSeconds() - before;
    return { ...result, cpu_ms: cpu * 1000 / Math.max(1, result.requests) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  } finally {
    await peer?.close();
  }
}

if (import.meta.main) {
  await endpointBench();
  Deno.exit(0);
}
