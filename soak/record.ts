/**
 * What the soak counts, per phase: answers by status and error code, latencies, executions
 * started and ended, acknowledged writes (read back at the end), and violations, the answers a
 * client must never see: a hang (the client's own timeout), a dropped connection outside a
 * SIGKILL, an error without the envelope, a 5xx other than the documented unavailability, a 500
 * without a correlation id.
 */

export interface PhaseStats {
  name: string;
  requests: number;
  errors: Map<string, number>;
  latencies: number[];
  /** Execution ids the service acknowledged (200 with `SVC-Execution-Id`). */
  started: Set<string>;
  /** Of those, the ones whose stream delivered a terminal frame. */
  endedOnStream: Set<string>;
  violations: string[];
  /** Time from the fault to every replica answering /ready (ms), when the phase has a fault. */
  readyAfterMs?: number;
  /** Filled at the end: started runs still RUNNING after the reaper's window, and lost writes. */
  runningLeft?: number;
  endedInStore?: number;
  lostWrites?: number;
  /** The metadata store at the phase's end: database bytes and execution records. */
  store?: { bytes: number; executions: number };
}

/**
 * Documented answers to a store or shared-store outage; a 502/503 from the balancer also. A run
 * whose result Redis could not take while it was down answers 503 `service.unavailable` too (its
 * record keeps `result.storage_unavailable`), so that code's 500 here is a finding.
 */
const UNAVAILABLE = new Set(["service.unavailable", "rate_limit.unavailable"]);

export type WriteKind = "api_key" | "pipeline" | "execution";

export class Recorder {
  readonly phases: PhaseStats[] = [];
  /** Acknowledged writes: what was written, and in which phase. */
  readonly writes: { kind: WriteKind; id: string; phase: PhaseStats }[] = [];
  /** Violations allowed to be a dropped connection: the replica was SIGKILLed under it. */
  allowDrops = false;

  get current(): PhaseStats {
    return this.phases.at(-1)!;
  }

  begin(name: string): PhaseStats {
    const phase: PhaseStats = {
      name,
      requests: 0,
      errors: new Map(),
      latencies: [],
      started: new Set(),
      endedOnStream: new Set(),
      violations: [],
    };
    this.phases.push(phase);
    return phase;
  }

  acknowledged(kind: WriteKind, id: string): void {
    this.writes.push({ kind, id, phase: this.current });
  }

  violation(what: string): void {
    this.current.violations.push(what);
  }

  /** An answer's status (and envelope, when not 2xx) into the current phase. */
  async answer(op: string, res: Response, ms: number): Promise<void> {
    const p = this.current;
    p.requests++;
    p.latencies.push(ms);
    if (res.ok) return;
    let body: Record<string, unknown> | undefined;
    try {
      body = await res.json();
    } catch { /* not JSON */ }
    const error = body?.error as { code?: string } | undefined;
    const code = error?.code;
    const key = `${res.status} ${code ?? "(no envelope)"}`;
    p.errors.set(key, (p.errors.get(key) ?? 0) + 1);
    if (!code) return this.violation(`${op}: ${res.status} without the error envelope`);
    if (res.status === 500 && !body?.correlation_id) {
      return this.violation(`${op}: 500 ${code} without a correlation id`);
    }
    if (res.status >= 500 && !UNAVAILABLE.has(code) && res.status !== 502 && res.status !== 503) {
      this.violation(`${op}: ${res.status} ${code} is not a documented unavailability`);
    }
  }

  /** A request that got no answer: a hang (timeout) always counts, a drop unless allowed. */
  failed(op: string, error: unknown, ms: number): void {
    const p = this.current;
    p.requests++;
    p.latencies.push(ms);
    const name = (error as Error)?.name;
    const key = name === "TimeoutError" ? "timeout" : "connection dropped";
    p.errors.set(key, (p.errors.get(key) ?? 0) + 1);
    if (key === "timeout" || !this.allowDrops) {
      this.violation(`${op}: ${key} (${(error as Error)?.message?.slice(0, 120)})`);
    }
  }
}

export function percentile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** The per-phase table, one row a phase. */
export function table(phases: PhaseStats[]): string {
  const head = [
    "phase",
    "requests",
    "p50 ms",
    "p99 ms",
    "runs started",
    "ended (stream)",
    "ended (store)",
    "RUNNING left",
    "writes lost",
    "ready after ms",
    "violations",
    "store MB (records)",
    "errors by code",
  ];
  const rows = phases.map((p) => [
    p.name,
    `${p.requests}`,
    percentile(p.latencies, 0.5).toFixed(0),
    percentile(p.latencies, 0.99).toFixed(0),
    `${p.started.size}`,
    `${p.endedOnStream.size}`,
    `${p.endedInStore ?? "-"}`,
    `${p.runningLeft ?? "-"}`,
    `${p.lostWrites ?? "-"}`,
    p.readyAfterMs === undefined ? "-" : `${p.readyAfterMs}`,
    `${p.violations.length}`,
    p.store ? `${(p.store.bytes / 1e6).toFixed(1)} (${p.store.executions})` : "-",
    [...p.errors].map(([k, n]) => `${k} ×${n}`).join(", ") || "none",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((c, i) => c.padEnd(i === cells.length - 1 ? 0 : widths[i])).join(" | ") +
    " |";
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
