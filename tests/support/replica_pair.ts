/**
 * Two real `main.ts serve` processes sharing one fresh PostgreSQL store and Redis, plus a third
 * instance in this process for set-up (seeding users, minting sessions and keys with the shared
 * secrets): the world of the tests that prove a change on one replica reaches the other.
 */
import { readSources } from "../../src/config/mod.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { createLogger } from "../../src/lib/log.ts";
import { createRuntime, type Runtime } from "../../src/runtime.ts";
import { testSecrets } from "./harness.ts";
import { ServerProcess } from "./server_process.ts";
import { REDIS_URL, skipUnless } from "./services.ts";
import { freshPostgresDatabase } from "./stores.ts";

export interface ReplicaPair {
  a: ServerProcess;
  b: ServerProcess;
  /** The in-process set-up instance on the same store and shared store. */
  setup: Runtime;
  /** A scratch directory, removed afterwards. */
  dir: string;
}

/**
 * Well inside the one-minute bounds of the caches a replica keeps (keys, memberships, the
 * endpoint matcher): only the channel between the processes can explain a change this fast.
 */
export const PROPAGATION_MS = 10_000;

/**
 * A test over a replica pair, named for the servers it needs and skipped without them; the demo
 * content is off unless `options` say otherwise.
 */
export function replicaPairTest(
  name: string,
  fn: (pair: ReplicaPair) => Promise<void>,
  options: Parameters<typeof withReplicaPair>[0] = { env: { SERVICE_DEMO_ENABLED: "false" } },
): void {
  Deno.test({
    name: `[postgres+redis] ${name}`,
    ignore: skipUnless("postgres", "redis"),
    fn: () => withReplicaPair(options, fn),
  });
}

export async function withReplicaPair(
  options: { env?: Record<string, string>; stopSignal?: Deno.Signal },
  fn: (pair: ReplicaPair) => Promise<void>,
): Promise<void> {
  const db = await freshPostgresDatabase();
  const dir = await Deno.makeTempDir({ prefix: "svc_replicas_" });
  const env = {
    SERVICE_STORE_URL: db.url,
    SERVICE_SHARED_STORE_URL: REDIS_URL,
    ...options.env,
    ...testSecrets(),
  };
  const servers = [
    new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/a` }),
    new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/b` }),
  ];
  const setupEnv = { ...env, SERVICE_DATA_DIR: `${dir}/setup`, SERVICE_HTTP_PORT: "0" };
  const setup = await createRuntime(resolveConfig(readSources(setupEnv), setupEnv), {
    env: setupEnv,
    logger: createLogger("error"),
  });
  try {
    await Promise.all(servers.map((s) => s.ready));
    const [a, b] = servers;
    await fn({ a, b, setup, dir });
  } finally {
    await Promise.all(servers.map((s) => s.stop(options.stopSignal)));
    await setup.close();
    await db.drop();
    await Deno.remove(dir, { recursive: true });
  }
}
