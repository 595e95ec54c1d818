/**
 * Execute-route client, run as its own process so it does not share the server's event loop:
 * `deno run --allow-net bench/execute_client.ts URL HEADERS_JSON COUNT CONCURRENCY` posts COUNT
 * executions, CONCURRENCY at a time, reads each event stream to its end and prints one JSON line:
 * per-execution latency (request to the end of the stream), errors and elapsed seconds.
 */
const [url, headersJson, count, concurrency] = Deno.args;
const headers: Record<string, string> = {
  ...JSON.parse(headersJson),
  accept: "text/event-stream",
  "content-type": "application/json",
};
const total = Number(count);
let next = 0;
let errors = 0;
const latencies: number[] = [];

async function worker() {
  while (next < total) {
    next++;
    const t0 = performance.now();
    try {
      const res = await fetch(url, { method: "POST", headers, body: "{}" });
      const text = await res.text();
      // A run that succeeded with a caller result ends on data_ready.
      if (res.status !== 200 || !text.includes("event: data_ready")) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t0);
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
console.log(JSON.stringify({ latencies, errors, seconds: (performance.now() - started) / 1000 }));
