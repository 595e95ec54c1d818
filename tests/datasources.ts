/**
 * Fixtures for connector tests: fresh databases on the real servers, connector configs for them,
 * a hanging server, and waiting on a condition with a deadline instead of sleeping.
 */
import mysql from "mysql2/promise";
import type { RowStream, WireValue } from "../src/datasources/connectors/types.ts";
import { assertServices, MARIADB_URL } from "./services.ts";

export { connectorConfig } from "../src/datasources/mod.ts";

/** Creates an empty MariaDB database; `drop()` removes it. */
export async function freshMariaDatabase(): Promise<
  { name: string; url: string; drop(): Promise<void> }
> {
  assertServices("mariadb");
  const name = `svc_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await mariaAdmin();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(MARIADB_URL);
  return {
    name,
    url: `jdbc:mariadb://${url.hostname}:${url.port || 3306}/${name}`,
    async drop() {
      const a = await mariaAdmin();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await a.end();
      }
    },
  };
}

/** An administrative MariaDB connection (root) for fixtures and for watching the server. */
export function mariaAdmin(database?: string): Promise<mysql.Connection> {
  const url = new URL(MARIADB_URL);
  return mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || "root"),
    password: decodeURIComponent(url.password),
    database,
    multipleStatements: true,
  });
}

/** `postgres://…/db` as the jdbc_url form. */
export function pgJdbcUrl(url: string): string {
  const u = new URL(url);
  return `jdbc:postgresql://${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** Every batch of a stream, and the rows flattened. */
export async function drain(
  stream: RowStream,
): Promise<{ batches: number[]; rows: WireValue[][] }> {
  const batches: number[] = [];
  const rows: WireValue[][] = [];
  for await (const batch of stream) {
    batches.push(batch.length);
    for (const row of batch) rows.push(row);
  }
  return { batches, rows };
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A TCP server that accepts connections and never answers: a connect that hangs. */
export function hangingServer(): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      listener.close();
      await accepting;
      for (const conn of held) {
        try {
          conn.close();
        } catch {
          // closed by the peer already
        }
      }
    },
  };
}
