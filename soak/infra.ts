/**
 * The soak's own servers: a private Redis and a private PostgreSQL cluster under /tmp, started and
 * killed here and nowhere else, so restarting them never touches the shared services other work
 * on this machine uses. Without `initdb` (or a `postgres` user to run it as) the soak falls back
 * to a fresh database on the shared server and terminates its own connections instead of
 * restarting anything.
 */
import postgres from "postgres";
import { freePort } from "../tests/support/harness.ts";
import { POSTGRES_ADMIN_URL } from "../tests/support/services.ts";
import { freshPostgresDatabase } from "../tests/support/stores.ts";

async function waitFor(what: string, probe: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not come up within ${ms} ms`);
}

async function tcpOpen(port: number): Promise<boolean> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  conn.close();
  return true;
}

/** A `redis-server` on a free loopback port, without persistence (a restart empties it). */
export class PrivateRedis {
  readonly port = freePort();
  #child?: Deno.ChildProcess;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.#child = new Deno.Command("redis-server", {
      args: ["--port", `${this.port}`, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      stdout: "null",
      stderr: "null",
    }).spawn();
    await waitFor("redis", () => tcpOpen(this.port));
  }

  /** SIGSTOP freezes it (its clients' commands time out), SIGCONT wakes it. */
  signal(signal: "SIGSTOP" | "SIGCONT"): void {
    this.#child?.kill(signal);
  }

  /** Killed outright: what a crashed or restarted Redis looks like to its clients. */
  async stop(): Promise<void> {
    if (!this.#child) return;
    try {
      this.#child.kill("SIGKILL");
    } catch { /* gone */ }
    await this.#child.status;
    this.#child = undefined;
  }
}

/** What the soak needs of its PostgreSQL: a URL, a fault to inject, and a clean-up. */
export interface SoakPostgres {
  url: string;
  /** "restart" for a private cluster, "terminate" for a database on the shared server. */
  fault: "restart" | "terminate";
  inject(): Promise<void>;
  close(): Promise<void>;
}

const PG_BIN = (() => {
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name).sort();
    return versions.length ? `/usr/lib/postgresql/${versions.at(-1)}/bin` : "";
  } catch {
    return "";
  }
})();

async function asPostgres(args: string[]): Promise<void> {
  // initdb and pg_ctl refuse to run as root; the distribution's `postgres` user runs them.
  const root = Deno.uid() === 0;
  const out = await new Deno.Command(root ? "runuser" : args[0], {
    args: root ? ["-u", "postgres", "--", ...args] : args.slice(1),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${args[0]} failed: ${new TextDecoder().decode(out.stderr).slice(0, 500)}`);
  }
}

/** A throw-away cluster in /tmp: fsync off, loopback only, restarted with `pg_ctl -m fast`. */
async function privateCluster(): Promise<SoakPostgres> {
  const dir = await Deno.makeTempDir({ prefix: "soak_pg_" });
  if (Deno.uid() === 0) await Deno.chown(dir, postgresUid(), null);
  const port = freePort();
  const data = `${dir}/data`;
  const ctl = (...a: string[]) => asPostgres([`${PG_BIN}/pg_ctl`, "-D", data, ...a]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
    `-c max_connections=200`;
  try {
    await asPostgres([
      `${PG_BIN}/initdb`,
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "--no-sync",
      "-E",
      "UTF8",
    ]);
    await ctl("-o", options, "-l", `${dir}/log`, "-w", "start");
  } catch (e) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    throw e;
  }
  const admin = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
    max: 1,
    onnotice: () => {},
  });
  await admin.unsafe("CREATE DATABASE soak");
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/soak`,
    fault: "restart",
    inject: () => ctl("-o", options, "-l", `${dir}/log`, "-m", "fast", "-w", "restart"),
    async close() {
      await ctl("-m", "immediate", "-w", "stop").catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

function postgresUid(): number {
  const line = Deno.readTextFileSync("/etc/passwd").split("\n").find((l) =>
    l.startsWith("postgres:")
  );
  if (!line) throw new Error("no postgres user");
  return Number(line.split(":")[2]);
}

/** A fresh database on the shared server; the fault ends this database's connections only. */
async function sharedDatabase(): Promise<SoakPostgres> {
  const db = await freshPostgresDatabase();
  const name = new URL(db.url).pathname.slice(1);
  return {
    url: db.url,
    fault: "terminate",
    async inject() {
      const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid()`,
          [name],
        );
      } finally {
        await admin.end();
      }
    },
    close: () => db.drop(),
  };
}

export async function soakPostgres(log: (line: string) => void): Promise<SoakPostgres> {
  if (PG_BIN) {
    try {
      return await privateCluster();
    } catch (e) {
      log(`no private PostgreSQL cluster (${(e as Error).message}); using the shared server`);
    }
  }
  return await sharedDatabase();
}

/**
 * Reads the soak database's size and its execution records; undefined while PostgreSQL is away
 * (a phase that ends inside an outage has no figure rather than a wait).
 */
export function storeSize(url: string) {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
  return {
    async read(): Promise<{ bytes: number; executions: number } | undefined> {
      try {
        const [row] = await sql`SELECT pg_database_size(current_database())::float8 AS bytes,
          (SELECT count(*) FROM executions)::float8 AS executions`;
        return { bytes: row.bytes, executions: row.executions };
      } catch {
        return undefined;
      }
    },
    close: () => sql.end({ timeout: 2 }),
  };
}
