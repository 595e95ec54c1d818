/**
 * Health: each component answers UP or DOWN from a real probe, bounded in time. Results are reused
 * for `probe-cache-ms` and concurrent callers share one probe in flight, so a load balancer polling
 * /health cannot flood the database or start a DuckDB per request.
 */
import { withTimeout } from "../lib/deadline.ts";
import type { Logger } from "../lib/log.ts";

export type ComponentName = "database" | "shared_store" | "staging_engine";
export type Status = "UP" | "DOWN";

export interface HealthReport {
  status: Status;
  components: Record<ComponentName, Status>;
}

export type Probe = () => Promise<void>;

export interface HealthOptions {
  timeoutMs: number;
  cacheMs: number;
  logger: Logger;
}

export class HealthService {
  #probes: Record<ComponentName, Probe>;
  #options: HealthOptions;
  #cached?: { at: number; report: HealthReport };
  #inFlight?: Promise<HealthReport>;
  #last: Partial<Record<ComponentName, Status>> = {};
  #started = false;
  #draining = false;

  constructor(probes: Record<ComponentName, Probe>, options: HealthOptions) {
    this.#probes = probes;
    this.#options = options;
  }

  /** Startup finished (migrations, seeding): readiness may turn true. */
  markStarted(): void {
    this.#started = true;
  }

  /** Shutdown began: readiness turns false so balancers stop sending traffic. */
  markDraining(): void {
    this.#draining = true;
  }

  /** Every component's status, from a fresh or recently cached probe. */
  check(): Promise<HealthReport> {
    const cached = this.#cached;
    if (cached && Date.now() - cached.at < this.#options.cacheMs) {
      return Promise.resolve(cached.report);
    }
    this.#inFlight ??= this.#probe().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** Ready means started, not draining, and every component UP. */
  async readiness(): Promise<
    { ready: true; report: HealthReport } | { ready: false; reason: string; report: HealthReport }
  > {
    const report = await this.check();
    if (!this.#started) return { ready: false, reason: "starting", report };
    if (this.#draining) return { ready: false, reason: "shutting down", report };
    if (report.status === "DOWN") {
      const down = Object.entries(report.components).filter(([, s]) => s === "DOWN").map(([n]) =>
        n
      );
      return { ready: false, reason: `${down.join(", ")} down`, report };
    }
    return { ready: true, report };
  }

  async #probe(): Promise<HealthReport> {
    const names = Object.keys(this.#probes) as ComponentName[];
    const results = await Promise.all(names.map(async (name) => {
      try {
        await withTimeout(this.#probes[name](), this.#options.timeoutMs, `${name} probe`);
        return "UP" as const;
      } catch (e) {
        // Logged on change only: /health stays public and terse, the log says why.
        if (this.#last[name] !== "DOWN") {
          this.#options.logger.warn("health component down", {
            component: name,
            reason: (e as Error).message,
          });
        }
        return "DOWN" as const;
      }
    }));
    const components = {} as Record<ComponentName, Status>;
    names.forEach((name, i) => {
      if (this.#last[name] === "DOWN" && results[i] === "UP") {
        this.#options.logger.info("health component up", { component: name });
      }
      this.#last[name] = results[i];
      components[name] = results[i];
    });
    const report: HealthReport = {
      status: results.every((s) => s === "UP") ? "UP" : "DOWN",
      components,
    };
    this.#cached = { at: Date.now(), report };
    return report;
  }
}
