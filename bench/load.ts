/**
 * Load generator, run as its own process so it does not share the server's event loop:
 * `deno run -A bench/load.ts URL SECONDS CONCURRENCY [HEADERS_JSON]` prints one JSON line of results.
 */
const [url, seconds = "5", concurrency = "32", headersJson = "{}"] = Deno.args;
const headers: Record<string, string> = JSON.parse(headersJson);
const until = performance.now() + Number(seconds) * 1000;
const latencies: number[] = [];
let errors = 0;

async function worker() {
  while (performance.now() < until) {
    const t0 = performance.now();
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t0);
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
console.log(JSON.stringify({
  requests: latencies.length,
  errors,
  rps: latencies.length / elapsed,
  p50_ms: pct(0.5),
  p99_ms: pct(0.99),
}));
