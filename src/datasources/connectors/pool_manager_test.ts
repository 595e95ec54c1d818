import { deepEqual, equal, notEqual, ok, rejects } from "node:assert/strict";
import postgres from "postgres";
import { MemoryStore, RedisStore, type SharedStore } from "../../shared/mod.ts";
import { REDIS_URL, skipUnless } from "../../../tests/support/services.ts";
import { freshPostgresDatabase } from "../../../tests/support/stores.ts";
import { connectorConfig, pgJdbcUrl } from "../../../tests/support/datasources.ts";
import { type Connector, openConnector, PoolManager } from "./mod.ts";
import type { PostgresConnector } from "./postgres.ts";
import { eventually } from "../../../tests/support/wait.ts";

const ignorePg = skipUnless("postgres");

async function withDatabase(fn: (url: string, admin: postgres.Sql) => Promise<void>) {
  const db = await freshPostgresDatabase();
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await fn(db.url, admin);
  } finally {
    await admin.end();
    await db.drop();
  }
}

Deno.test({
  name:
    "[postgres] retire(): a running stream finishes on the retired pool; new leases get a new one",
  ignore: ignorePg,
  async fn() {
    await withDatabase(async (url) => {
      const manager = await PoolManager.create({ retireCeilingMs: 60_000 });
      const opened: Connector[] = [];
      const open = () => {
        const c = openConnector(connectorConfig("POSTGRES", pgJdbcUrl(url)));
        opened.push(c);
        return c;
      };
      const retired: string[] = [];
      manager.onRetired((name) => retired.push(name));
      try {
        const old = await manager.get("sales", open);
        equal(await manager.get("sales", open), old, "one pool per datasource");
        const stream = await old.query({ sql: "SELECT g FROM generate_series(1, 5000) g" }, {
          batchRows: 500,
        });
        const iterator = stream[Symbol.asyncIterator]();
        equal((await iterator.next()).value?.length, 500);

        const retiring = manager.retire("sales");
        equal(manager.has("sales"), false, "new leases miss the retired pool at once");
        const fresh = await manager.get("sales", open);
        notEqual(fresh, old);
        equal(manager.retiring, 1);
        deepEqual(
          await fresh.query({ sql: "SELECT 1" }).then(async (s) => {
            const rows = [];
            for await (const b of s) rows.push(...b);
            return rows;
          }),
          [[1]],
        );

        let rest = 500;
        for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
          rest += r.value.length;
        }
        equal(rest, 5000, "the running statement finished on its connection");
        await retiring;
        deepEqual(retired, ["sales"]);
        equal(manager.retiring, 0);
        await rejects(old.query({ sql: "SELECT 1" }), /closed/);
      } finally {
        await manager.closeAll();
      }
      equal((opened[1] as PostgresConnector).pool.closed, true, "closeAll closed the current pool");
    });
  },
});

Deno.test({
  name: "[postgres] the reaper closes a retired pool at the ceiling and stops its statement",
  ignore: ignorePg,
  async fn() {
    await withDatabase(async (url, admin) => {
      const manager = await PoolManager.create({ retireCeilingMs: 300 });
      try {
        const c = await manager.get(
          "slow",
          () => openConnector(connectorConfig("POSTGRES", pgJdbcUrl(url))),
        );
        const pidStream = await c.query({ sql: "SELECT pg_backend_pid()" });
        let pid = 0;
        for await (const [[p]] of pidStream) pid = p as number;
        const running = c.query({ sql: "SELECT pg_sleep(60)" });
        running.catch(() => {});
        await eventually(
          async () =>
            (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active'`)
              .length > 0,
          { what: "pg_sleep to run", ms: 10_000 },
        );
        const started = Date.now();
        await manager.retire("slow");
        const took = Date.now() - started;
        ok(took >= 250 && took < 10_000, `closed after ${took} ms`);
        await rejects(running);
        await eventually(
          async () =>
            (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${pid} AND state = 'active'`)
              .length === 0,
          { what: "the backend to end", ms: 10_000 },
        );
      } finally {
        await manager.closeAll();
      }
    });
  },
});

async function broadcastTest(a: SharedStore, b: SharedStore) {
  const channel = `datasources.invalidate.test.${crypto.randomUUID()}`;
  const one = await PoolManager.create({ retireCeilingMs: 1000, shared: a, channel });
  const two = await PoolManager.create({ retireCeilingMs: 1000, shared: b, channel });
  const open = () => openConnector(connectorConfig("SQLITE", "jdbc:sqlite::memory:"));
  try {
    await one.get("ds", open);
    await two.get("ds", open);
    await two.get("other", open);
    await one.publishRetire("ds");
    equal(one.has("ds"), false);
    await eventually(() => !two.has("ds"), {
      what: "the other instance to retire its pool",
      ms: 10_000,
    });
    equal(two.has("other"), true, "only the named datasource is retired");
    // Malformed messages are ignored rather than breaking the subscription.
    await a.publish(channel, "not json");
    await one.publishRetire("other");
    await eventually(() => !two.has("other"), { what: "the second retirement", ms: 10_000 });
  } finally {
    await one.closeAll();
    await two.closeAll();
  }
}

Deno.test("[memory] publishRetire() retires the pool on every manager sharing the store", async () => {
  const store = new MemoryStore();
  try {
    await broadcastTest(store, store);
  } finally {
    await store.close();
  }
});

Deno.test({
  name: "[redis] publishRetire() retires the pool on another instance over Redis",
  ignore: skipUnless("redis"),
  async fn() {
    const a = await RedisStore.connect(REDIS_URL);
    const b = await RedisStore.connect(REDIS_URL);
    try {
      await broadcastTest(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  },
});

Deno.test("PoolManager.get() shares one opening and forgets a failed one", async () => {
  const manager = await PoolManager.create({ retireCeilingMs: 1000 });
  let opens = 0;
  try {
    const open = () => {
      opens++;
      return openConnector(connectorConfig("SQLITE", "jdbc:sqlite::memory:"));
    };
    const [x, y] = await Promise.all([manager.get("a", open), manager.get("a", open)]);
    equal(x, y);
    equal(opens, 1);
    await rejects(
      manager.get("b", () => {
        throw new Error("bad definition");
      }),
      /bad definition/,
    );
    equal(manager.has("b"), false);
  } finally {
    await manager.closeAll();
  }
  await rejects(
    manager.get("a", () => openConnector(connectorConfig("SQLITE", "jdbc:sqlite::memory:"))),
    /closed/,
  );
});
