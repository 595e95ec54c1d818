/**
 * Three `main.ts serve` replicas on one PostgreSQL and one Redis, behind the round-robin proxy,
 * and the content the load needs: users, a session, keys, a fast pipeline with a caller result, a
 * slow one a fault can catch mid-run, and a published endpoint. The content is written by an
 * in-process instance that closes before the load starts, so only the three replicas run.
 */
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { seedRoles, sessionHeaders, userKey } from "../tests/support/access_fixtures.ts";
import { testSecrets } from "../tests/support/harness.ts";
import { dql, releasedPipeline } from "../tests/support/pipeline_body.ts";
import { ServerProcess } from "../tests/support/server_process.ts";
import { READY_CHECK_MS, RoundRobinProxy } from "./proxy.ts";

/** What the load calls with. */
export interface Content {
  /** A browser session of the author (cookie and CSRF header): key and pipeline writes. */
  session: Record<string, string>;
  /** The author's key with every scope the load uses. */
  key: string;
  fastPipeline: string;
  slowPipeline: string;
  /** Published as `/api/x/rows`. */
  endpointPath: string;
}

/** A run that ends only when cancelled, aborted or killed: what a fault catches mid-execution. */
const SLOW_SQL = "SELECT sum(range) AS s FROM range(1000000000000)";

export class Cluster {
  readonly replicas: ServerProcess[] = [];
  /** Replicas stopped by a fault, kept for their logs. */
  readonly #retired: ServerProcess[] = [];
  proxy!: RoundRobinProxy;
  readonly #env: Record<string, string>;
  readonly #dir: string;
  #generation = 0;

  constructor(env: Record<string, string>, dir: string) {
    this.#env = env;
    this.#dir = dir;
  }

  static async start(
    store: string,
    shared: string,
    heartbeatSeconds: number,
    replicas = 3,
  ): Promise<{ cluster: Cluster; content: Content }> {
    const dir = await Deno.makeTempDir({ prefix: "soak_replicas_" });
    const env = {
      SERVICE_STORE_URL: store,
      SERVICE_SHARED_STORE_URL: shared,
      SERVICE_DEMO_ENABLED: "false",
      SERVICE_EXECUTIONS_HEARTBEAT_INTERVAL_SECONDS: `${heartbeatSeconds}`,
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
      SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "200",
      SERVICE_SSE_MAX_STREAMS_PER_USER: "500",
      SERVICE_SSE_HEARTBEAT_INTERVAL_SECONDS: "1",
      SERVICE_HTTP_SHUTDOWN_GRACE_SECONDS: "10",
      SERVICE_EXECUTOR_DUCKDB_MEMORY_LIMIT_MB: "256",
      ...testSecrets(),
    };
    const cluster = new Cluster(env, dir);
    try {
      const content = await cluster.#seed();
      for (let i = 0; i < replicas; i++) cluster.replicas.push(cluster.#spawn(i));
      await Promise.all(cluster.replicas.map((r) => r.ready));
      cluster.proxy = new RoundRobinProxy(cluster.replicas.map((r) => r.url));
      return { cluster, content };
    } catch (e) {
      // A replica that did start must not outlive a set-up that failed.
      await cluster.close();
      throw e;
    }
  }

  async #seed(): Promise<Content> {
    const env = { ...this.#env, SERVICE_DATA_DIR: `${this.#dir}/setup`, SERVICE_HTTP_PORT: "0" };
    const rt = await createRuntime(resolveConfig(readSources(env), env), {
      env,
      logger: createLogger("error"),
    });
    try {
      const f = await seedRoles(rt);
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const fastPipeline = await releasedPipeline(rt, ctx, "soak/fast", {
        nodes: [dql("rows", { source: "tempdb", sql: "SELECT range AS n FROM range(25)" })],
      });
      const slowPipeline = await releasedPipeline(rt, ctx, "soak/slow", {
        nodes: [dql("slow", { source: "tempdb", sql: SLOW_SQL })],
      });
      await rt.endpoints.publish(ctx, { path_pattern: "/rows", pipeline_id: fastPipeline });
      const key = await userKey(rt, f.users.author, f.workspace.id, ["read", "execute"]);
      const session = await sessionHeaders(rt, f.users.author, "acme");
      return { session, key, fastPipeline, slowPipeline, endpointPath: "/api/x/rows" };
    } finally {
      await rt.close();
    }
  }

  #spawn(index: number): ServerProcess {
    const dataDir = `${this.#dir}/r${index}_${this.#generation++}`;
    return new ServerProcess({ ...this.#env, SERVICE_DATA_DIR: dataDir });
  }

  /**
   * Stops replica `index` with `signal` and starts a new one in its place at the same moment, as
   * an orchestrator's rolling update does (a drain may take most of the shutdown grace); answers
   * the old one's exit code and how long it took to exit.
   */
  async replace(index: number, signal: Deno.Signal): Promise<{ code: number; exitMs: number }> {
    const t0 = performance.now();
    const old = this.replicas[index];
    const stopped = old.stop(signal).then((code) => ({
      code,
      exitMs: Math.round(performance.now() - t0),
    }));
    this.#retired.push(old);
    const next = this.#spawn(index);
    this.replicas[index] = next;
    await next.ready;
    this.proxy.replace(index, next.url);
    return await stopped;
  }

  /** Every replica answers `/ready` 200, and the proxy has them all in rotation. */
  async allReady(): Promise<boolean> {
    const answers = await Promise.all(this.replicas.map(async (r) => {
      if (!r.url) return false;
      try {
        const res = await fetch(`${r.url}/ready`, { signal: AbortSignal.timeout(READY_CHECK_MS) });
        await res.body?.cancel();
        return res.status === 200;
      } catch {
        return false;
      }
    }));
    return answers.every(Boolean) && this.proxy.upstreams.every((u) => u.ready);
  }

  /** What each replica's `/ready` answers, and whether the proxy has it in rotation. */
  async readiness(): Promise<string> {
    const answers = await Promise.all(this.replicas.map(async (r, i) => {
      const rotation = this.proxy.upstreams[i]?.ready ? "in rotation" : "out of rotation";
      try {
        const res = await fetch(`${r.url}/ready`, { signal: AbortSignal.timeout(READY_CHECK_MS) });
        return `replica ${i} (${rotation}): ${res.status} ${(await res.text()).slice(0, 400)}`;
      } catch (e) {
        return `replica ${i} (${rotation}): ${(e as Error).message}`;
      }
    }));
    return answers.join("; ");
  }

  /** Every replica's warnings and errors (JSON lines), one file each, for a failed run. */
  async saveLogs(dir: string): Promise<void> {
    await Deno.mkdir(dir, { recursive: true });
    for (const [i, r] of [...this.#retired, ...this.replicas].entries()) {
      const lines = r.lines.filter((l) => /"level":"(warn|error)"/.test(l));
      await Deno.writeTextFile(`${dir}/replica_${i}.log`, lines.join("\n") + r.stderr);
    }
  }

  async close(): Promise<void> {
    await this.proxy?.close();
    await Promise.all(this.replicas.map((r) => r.stop("SIGKILL")));
    await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }
}
