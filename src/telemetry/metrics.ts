/**
 * The instance's metrics: one prom-client registry and every instrument, defined here and only
 * here. Domains never import this file: each reports through a small hook of its own (the
 * executor's `ExecutionMeter`, the endpoint server's `onServed`, the group commit's `observe`,
 * the pool manager's `usage()`), and the wiring (src/observe.ts) joins them to these methods.
 * Off by default (`service.metrics.enabled`): when off, no instance of this class exists and no
 * hook costs anything.
 *
 * Labels are bounded by construction: a route is the pattern the request matched (never the raw
 * path), an endpoint its published pattern, a tool its catalogue name, an outcome a catalogue
 * code, a datasource a registered name.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Seconds: from a fast API answer to a long run. */
const LATENCY = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Result sizes: 1 KiB to 256 MiB, by fours. */
const BYTES = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144].map((k) => k * 1024);
/** Rows per group commit. */
const BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

/** One datasource pool on this instance, as the pool manager reports it. */
export interface PoolUsage {
  datasource: string;
  idle: number;
  leased: number;
  connecting: number;
  waiting: number;
  max: number;
}

/** A component's last probe, as the health service reports it. */
export type ComponentHealth = Record<string, "UP" | "DOWN">;

/** The methods that turn a status code into a label; anything else is `OTHER`. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

export class Metrics {
  readonly #registry = new Registry();
  #pools: () => PoolUsage[] = () => [];
  #health: () => Promise<ComponentHealth> = () => Promise.resolve({});

  readonly #requests = this.#counter(
    "svc_http_requests_total",
    "HTTP requests answered, by method, route pattern and status",
    ["method", "route", "status"],
  );
  readonly #requestSeconds = this.#histogram(
    "svc_http_request_duration_seconds",
    "Time to the response head (a stream's first byte), by method, route pattern and status",
    ["method", "route", "status"],
    LATENCY,
  );
  readonly #started = this.#counter(
    "svc_executions_started_total",
    "Executions started on this instance, by trigger",
    ["trigger"],
  );
  readonly #ended = this.#counter(
    "svc_executions_total",
    "Executions ended on this instance, by final status and trigger",
    ["status", "trigger"],
  );
  readonly #running = new Gauge({
    name: "svc_executions_running",
    help: "Executions running on this instance now",
    registers: [this.#registry],
  });
  readonly #runSeconds = this.#histogram(
    "svc_execution_duration_seconds",
    "Execution wall time, by final status and trigger",
    ["status", "trigger"],
    LATENCY,
  );
  readonly #nodeSeconds = this.#histogram(
    "svc_node_duration_seconds",
    "Node wall time, by node type and final status",
    ["type", "status"],
    LATENCY,
  );
  readonly #resultBytes = this.#histogram(
    "svc_result_store_result_bytes",
    "Size of each caller result written to the result store (_sum: bytes written)",
    [],
    BYTES,
  );
  readonly #serves = this.#counter(
    "svc_endpoint_serves_total",
    "Published endpoint requests that reached an endpoint, by path pattern and status",
    ["endpoint", "status"],
  );
  readonly #serveSeconds = this.#histogram(
    "svc_endpoint_serve_duration_seconds",
    "Published endpoint answer time, by path pattern",
    ["endpoint"],
    LATENCY,
  );
  readonly #tools = this.#counter(
    "svc_mcp_tool_calls_total",
    "Tool calls at /mcp, by tool and outcome (ok, or the refusal's error code)",
    ["tool", "outcome"],
  );
  readonly #toolSeconds = this.#histogram(
    "svc_mcp_tool_call_duration_seconds",
    "Tool call time, by tool",
    ["tool"],
    LATENCY,
  );
  readonly #batches = this.#histogram(
    "svc_group_commit_batch_size",
    "Writes committed together by one group commit (src/store/group_commit.ts)",
    [],
    BATCH,
  );
  readonly #batchSeconds = this.#histogram(
    "svc_group_commit_duration_seconds",
    "Time one group commit took to write its batch",
    [],
    LATENCY,
  );

  constructor(build: { version: string; commit: string | null }) {
    const registers = [this.#registry];
    new Gauge({
      name: "svc_build_info",
      help: "Always 1; the labels name this build",
      labelNames: ["version", "commit"],
      registers,
    }).set({ version: build.version, commit: build.commit ?? "unknown" }, 1);
    // Read at each scrape, through whatever watchPools and watchHealth installed last.
    const pools = () => this.#pools();
    const health = () => this.#health();
    new Gauge({
      name: "svc_datasource_pool_connections",
      help: "Connections of each datasource pool on this instance, by state",
      labelNames: ["datasource", "state"],
      registers,
      collect() {
        this.reset();
        for (const p of pools()) {
          this.set({ datasource: p.datasource, state: "idle" }, p.idle);
          this.set({ datasource: p.datasource, state: "leased" }, p.leased);
          this.set({ datasource: p.datasource, state: "connecting" }, p.connecting);
        }
      },
    });
    const poolGauge = (name: string, help: string, value: (p: PoolUsage) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["datasource"],
        registers,
        collect() {
          this.reset();
          for (const p of pools()) this.set({ datasource: p.datasource }, value(p));
        },
      });
    poolGauge(
      "svc_datasource_pool_waiting",
      "Callers waiting for a connection of each datasource pool",
      (p) => p.waiting,
    );
    poolGauge(
      "svc_datasource_pool_max",
      "Largest size (maximumPoolSize) of each datasource pool",
      (p) => p.max,
    );
    new Gauge({
      name: "svc_component_up",
      help: "1 when the component's health probe passes (database, shared_store, " +
        "staging_engine), from the same bounded, cached probe as /health",
      labelNames: ["component"],
      registers,
      async collect() {
        this.reset();
        for (const [component, status] of Object.entries(await health())) {
          this.set({ component }, status === "UP" ? 1 : 0);
        }
      },
    });
    // Process CPU, memory, file descriptors, heap and event-loop lag (`nodejs_eventloop_lag_*`,
    // sampled by perf_hooks' monitorEventLoopDelay): prom-client's standard set, names as every
    // Node dashboard knows them.
    collectDefaultMetrics({ register: this.#registry });
  }

  #counter(name: string, help: string, labelNames: string[]) {
    return new Counter({ name, help, labelNames, registers: [this.#registry] });
  }

  #histogram(name: string, help: string, labelNames: string[], buckets: number[]) {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.#registry] });
  }

  /** The exposition, in the Prometheus text format. */
  scrape(): Promise<string> {
    return this.#registry.metrics();
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** Where the pool gauges read at each scrape. */
  watchPools(read: () => PoolUsage[]): void {
    this.#pools = read;
  }

  /** Where the component gauge reads at each scrape (a bounded, cached probe). */
  watchHealth(read: () => Promise<ComponentHealth>): void {
    this.#health = read;
  }

  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method: METHODS.has(method) ? method : "OTHER", route, status };
    this.#requests.inc(labels);
    this.#requestSeconds.observe(labels, seconds);
  }

  executionStarted(trigger: string): void {
    this.#started.inc({ trigger });
    this.#running.inc();
  }

  executionEnded(status: string, trigger: string, seconds: number): void {
    this.#ended.inc({ status, trigger });
    this.#runSeconds.observe({ status, trigger }, seconds);
    this.#running.dec();
  }

  nodeEnded(type: string, status: string, seconds: number): void {
    this.#nodeSeconds.observe({ type, status }, seconds);
  }

  resultStored(bytes: number): void {
    this.#resultBytes.observe(bytes);
  }

  endpointServed(endpoint: string, status: number, seconds: number): void {
    this.#serves.inc({ endpoint, status });
    this.#serveSeconds.observe({ endpoint }, seconds);
  }

  toolCalled(tool: string, outcome: string, seconds: number): void {
    this.#tools.inc({ tool, outcome });
    this.#toolSeconds.observe({ tool }, seconds);
  }

  groupCommitted(writes: number, seconds: number): void {
    this.#batches.observe(writes);
    this.#batchSeconds.observe(seconds);
  }
}
