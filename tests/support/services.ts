/**
 * Which real servers the tests can reach. A test that needs one is ignored when it is down and
 * counted in Deno's "ignored" total, unless SERVICE_TEST_REQUIRE_SERVICES=1 (CI), which turns an
 * unreachable service into a failing test.
 */

export const POSTGRES_ADMIN_URL = Deno.env.get("TEST_POSTGRES_URL") ??
  "postgres://postgres@127.0.0.1:5432/postgres";
export const REDIS_URL = Deno.env.get("TEST_REDIS_URL") ?? "redis://127.0.0.1:6379";
/** MariaDB (or MySQL) with a root account that needs no password, as `.ci/run` starts it. */
export const MARIADB_URL = Deno.env.get("TEST_MARIADB_URL") ?? "mysql://root@127.0.0.1:3306/test";

export type ServiceName = "postgres" | "redis" | "mariadb";

const REQUIRE = Deno.env.get("SERVICE_TEST_REQUIRE_SERVICES") === "1";

async function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const conn = await Promise.race([
      Deno.connect({ hostname, port: Number(port) }),
      // Generous: under a parallel test run a loopback connect can take a while, and with
      // SERVICE_TEST_REQUIRE_SERVICES=1 a false "unreachable" fails tests. A server that is down
      // refuses at once, so this costs nothing then.
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timeout")), 10_000);
      }),
    ]);
    conn.close();
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const up: Record<ServiceName, boolean> = {
  postgres: await reachable(POSTGRES_ADMIN_URL),
  redis: await reachable(REDIS_URL),
  mariadb: await reachable(MARIADB_URL),
};

for (const [name, ok] of Object.entries(up)) {
  if (!ok) {
    console.error(
      REQUIRE
        ? `${name} is unreachable and SERVICE_TEST_REQUIRE_SERVICES=1: its tests will fail`
        : `${name} is unreachable: its tests are skipped (counted as ignored)`,
    );
  }
}

/** `ignore` value for a test that needs these services. */
export function skipUnless(...services: ServiceName[]): boolean {
  return !REQUIRE && services.some((s) => !up[s]);
}

/** Throws at the start of a required test whose service is down (CI mode). */
export function assertServices(...services: ServiceName[]): void {
  const down = services.filter((s) => !up[s]);
  if (down.length > 0) throw new Error(`required service unreachable: ${down.join(", ")}`);
}
