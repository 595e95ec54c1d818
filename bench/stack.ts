/**
 * What several benchmarks start from: the full HTTP stack on an ephemeral port, and the small
 * SQLite datasource file (table `t`, 1,000 rows) that the one-node figures read ten rows of.
 */
import { DatabaseSync } from "node:sqlite";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { startServer } from "../src/http/mod.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";

export interface Stack {
  runtime: Runtime;
  origin: string;
  /** The data directory, a fresh temporary one. */
  dir: string;
  /** Stops the listener and the runtime, and removes the data directory. */
  shutdown(): Promise<void>;
}

/**
 * A runtime on a fresh data directory (warn-level logs) with `extra` settings, marked started,
 * behind the real listener. The request budget is counted on every authenticated request (its
 * cost is measured) but never binds.
 */
export async function startStack(extra: Record<string, string> = {}): Promise<Stack> {
  const dir = await Deno.makeTempDir({ prefix: "svc_bench_" });
  const env = {
    SERVICE_DATA_DIR: dir,
    SERVICE_HTTP_PORT: "0",
    SERVICE_LOG_LEVEL: "warn",
    SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000000",
    SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000000",
    ...extra,
  };
  const logger = createLogger("warn");
  const config = resolveConfig(readSources(env), env);
  const runtime = await createRuntime(config, { env, logger });
  runtime.health.markStarted();
  const http = await startServer(runtime.app, {
    hostname: "127.0.0.1",
    port: 0,
    graceSeconds: 5,
    logger,
    timeouts: config.http,
  });
  return {
    runtime,
    origin: `http://127.0.0.1:${http.port}`,
    dir,
    async shutdown() {
      await http.shutdown();
      await runtime.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Writes the small datasource file at `path`; the handle stays open for raw baselines. */
export function smallSqliteFile(path: string): DatabaseSync {
  const raw = new DatabaseSync(path);
  raw.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v REAL);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
    INSERT INTO t SELECT i, 'name ' || i, i * 1.5 FROM n;`);
  return raw;
}
