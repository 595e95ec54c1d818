/**
 * Server-render time of the heaviest page — a pipeline with a 50-node DAG, drawn as SVG with its
 * parameters, versions and every node's SQL — over HTTP with a session, p50, against the REST
 * read of the same pipeline in the same run (target: page p50 <= 20 ms). The editor of the same
 * pipeline (a form card per node beside the JSON) is measured too, being as heavy.
 */
import { createUser, sessionHeaders } from "../tests/support/access_fixtures.ts";
import { startTestServer } from "../tests/support/harness.ts";

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 60);

/** 50 nodes in ten layers of five, each depending on two of the layer before. */
function fiftyNodes() {
  return Array.from({ length: 50 }, (_, i) => {
    const layer = Math.floor(i / 5);
    return {
      id: `n${i}`,
      type: "DQL",
      source: "tempdb",
      sql: `SELECT ${i} AS x, 'layer ${layer}' AS label FROM range(10)`,
      ...(layer > 0 ? { depends_on: [`n${i - 5}`, `n${(layer - 1) * 5 + ((i + 1) % 5)}`] } : {}),
      ...(i < 49 ? { output: { target: "tempdb", table: `t${i}` } } : {}),
    };
  });
}

async function p50(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

export async function uiPageBench(): Promise<void> {
  const s = await startTestServer({
    env: {
      SERVICE_LOG_LEVEL: "warn",
      // Sequential requests run faster than the per-user budget allows; it is not measured here.
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000000",
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000000",
    },
  });
  try {
    const admin = await createUser(s.runtime, "bench@example.com", { isAdmin: true });
    await s.runtime.workspaces.create(admin.principal, { name: "bench" });
    const ws = (await s.runtime.workspaces.get("bench"))!;
    const h = await sessionHeaders(s.runtime, admin, "bench");
    const created = await s.runtime.pipelines.create(
      { actor: admin.principal, workspaceId: ws.id },
      { name: "bench/fifty", parameters: {}, nodes: fiftyNodes() },
    );
    const page = `${s.url}/pipelines/${created.id}`;
    const api = `${s.url}/api/v1/pipelines/${created.id}`;
    await p50(page, { ...h, accept: "text/html" }); // warm both paths
    await p50(api, h);
    await p50(`${page}/edit`, { ...h, accept: "text/html" });
    const html = await p50(page, { ...h, accept: "text/html" });
    const editor = await p50(`${page}/edit`, { ...h, accept: "text/html" });
    const json = await p50(api, h);
    console.log("\nUI: the pipeline page of a 50-node DAG over HTTP with a session, p50");
    console.log(
      `  page (SVG graph, nodes, versions)   ${html.toFixed(2).padStart(8)} ms  (target <= 20)`,
    );
    console.log(`  editor (form cards and JSON)        ${editor.toFixed(2).padStart(8)} ms`);
    console.log(`  REST GET of the same pipeline       ${json.toFixed(2).padStart(8)} ms`);
    console.log(`  page / REST                         ${(html / json).toFixed(2).padStart(8)}`);
  } finally {
    await s.close();
  }
}

if (import.meta.main) await uiPageBench();
