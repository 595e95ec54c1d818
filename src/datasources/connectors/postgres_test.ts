import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import postgres from "postgres";
import { AppError } from "../../errors/mod.ts";
import { skipUnless } from "../../../tests/support/services.ts";
import { freshPostgresDatabase } from "../../../tests/support/stores.ts";
import {
  assertConnectTimesOut,
  connectorConfig,
  drain,
  pgConnectorTest,
  pgJdbcUrl,
} from "../../../tests/support/datasources.ts";
import { openConnector } from "./mod.ts";
import { decimalColumn } from "./test_fixtures.ts";
import type { PostgresConnector } from "./postgres.ts";
import { WriteError } from "./types.ts";
import { eventually } from "../../../tests/support/wait.ts";

const ignore = skipUnless("postgres");

const pgTest = pgConnectorTest;

pgTest("query() streams many rows in batches and returns the connection", async ({ c }) => {
  const stream = await c.query(
    {
      sql: "SELECT g AS n, 'row ' || g AS label FROM generate_series(1, :count) g",
      params: { count: 25_000 },
    },
    { batchRows: 1000 },
  );
  deepEqual(stream.schema, [
    { name: "n", type: "integer", source_type: "int4" },
    { name: "label", type: "string", source_type: "text" },
  ]);
  const { batches, rows } = await drain(stream);
  equal(batches.length, 25);
  ok(batches.every((b) => b === 1000));
  deepEqual(rows[24_999], [25_000, "row 25000"]);
  equal(stream.truncated, false);
  deepEqual(c.pool.stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
});

pgTest(
  "a read-only query runs inside its own read-only transaction, BEGIN sent with it",
  async ({ c, admin }) => {
    await admin.unsafe("CREATE TABLE t (n int)");
    const read = async (readOnly: boolean) => {
      const { rows } = await drain(
        await c.query({ sql: "SELECT current_setting('transaction_read_only') AS ro" }, {
          readOnly,
        }),
      );
      return rows[0][0];
    };
    // One connection, several queued at once: each BEGIN precedes its own statement.
    deepEqual(await Promise.all([read(true), read(true), read(true)]), ["on", "on", "on"]);
    const write = "WITH w AS (INSERT INTO t VALUES (1) RETURNING n) SELECT n FROM w";
    const refused = await c.query({ sql: write }, { readOnly: true }).then(drain).then(
      () => null,
      (e) => e,
    );
    match(String(refused?.message ?? refused), /read-only transaction/);
    // Ended by ROLLBACK: the next statement on the same connection is outside any transaction.
    equal(await read(false), "off");
    equal((await admin.unsafe("SELECT count(*)::int AS n FROM t"))[0].n, 0);
    equal(c.pool.stats.leased, 0);
  },
  { maximumPoolSize: 1 },
);

pgTest(
  "query() maps every type family to its wire type and keeps source_type",
  async ({ c, admin }) => {
    await admin.unsafe(`
    CREATE TYPE mood AS ENUM ('ok', 'sad');
    CREATE TABLE t (
      b boolean, i2 smallint, i4 integer, i8 bigint, d numeric(12,3), f4 real, f8 double precision,
      s text, vc varchar(20), ch char(3), dt date, ts timestamp(6), tz timestamptz, tm time,
      j json, jb jsonb, by bytea, u uuid, iv interval, arr int[], m mood, ip inet
    );
    INSERT INTO t VALUES (true, 7, -2147483648, 9223372036854775807, 123456789.125, 1.5, 2.25,
      'héllo', 'v', 'ab', '2024-02-29', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15+02',
      '23:59:58.5', '{"a": [1, 2]}', '{"b": null}', '\\x00ff', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      '1 day 2 hours', '{1,2}', 'sad', '10.0.0.1');
    INSERT INTO t DEFAULT VALUES;
  `);
    const stream = await c.query({ sql: "SELECT * FROM t ORDER BY b NULLS LAST" });
    deepEqual(stream.schema.map((col) => [col.name, col.type, col.source_type]), [
      ["b", "boolean", "bool"],
      ["i2", "integer", "int2"],
      ["i4", "integer", "int4"],
      ["i8", "bigint", "int8"],
      ["d", "decimal", "numeric"],
      ["f4", "double", "float4"],
      ["f8", "double", "float8"],
      ["s", "string", "text"],
      ["vc", "string", "varchar"],
      ["ch", "string", "bpchar"],
      ["dt", "date", "date"],
      ["ts", "timestamp", "timestamp"],
      ["tz", "timestamptz", "timestamptz"],
      ["tm", "time", "time"],
      ["j", "json", "json"],
      ["jb", "json", "jsonb"],
      ["by", "binary", "bytea"],
      ["u", "uuid", "uuid"],
      ["iv", "string", "interval"],
      ["arr", "string", "oid:1007"],
      ["m", "string", stream.schema[20].source_type],
      ["ip", "string", "inet"],
    ]);
    const { rows } = await drain(stream);
    const [full, empty] = rows;
    deepEqual(full.slice(0, 16), [
      true,
      7,
      -2147483648,
      9223372036854775807n,
      "123456789.125",
      1.5,
      2.25,
      "héllo",
      "v",
      "ab ",
      "2024-02-29",
      "2024-02-29T13:14:15.123456",
      "2024-02-29T11:14:15Z",
      "23:59:58.5",
      '{"a": [1, 2]}',
      '{"b": null}',
    ]);
    deepEqual([...(full[16] as Uint8Array)], [0, 255]);
    deepEqual(full.slice(17), [
      "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
      "1 day 02:00:00",
      "{1,2}",
      "sad",
      "10.0.0.1",
    ]);
    ok(empty.every((v) => v === null));

    const columns = await c.columns("t");
    const byName = Object.fromEntries(columns.map((col) => [col.name, col]));
    deepEqual(byName.d, decimalColumn("numeric(12,3)"));
    equal(byName.ts.source_type, "timestamp(6) without time zone");
    equal(byName.arr.type, "string");
    match(byName.arr.warnings[0], /integer\[\] has no canonical wire type/);
    match(byName.iv.warnings[0], /interval/);
    deepEqual([byName.m.type, byName.m.warnings], ["string", []]);
    equal(byName.jb.type, "json");
  },
);

pgTest("query() binds named values and a hostile value stays a value", async ({ c, admin }) => {
  await admin.unsafe("CREATE TABLE victims (name text)");
  await admin.unsafe("INSERT INTO victims VALUES ('kept')");
  const hostile = "x'); DROP TABLE victims; --";
  const stream = await c.query({
    sql: "SELECT :v::text AS v, :v = :v AS same, :n::int8 + 1 AS n, ':v' AS literal",
    params: { v: hostile, n: 41n },
  });
  deepEqual((await drain(stream)).rows, [[hostile, true, 42n, ":v"]]);
  const [row] = await admin.unsafe("SELECT count(*)::int AS n FROM victims");
  equal(row.n, 1);
});

pgTest("query() stops at maxRows and reports truncated", async ({ c }) => {
  const cut = await c.query({ sql: "SELECT g FROM generate_series(1, 100) g" }, {
    maxRows: 10,
    batchRows: 4,
  });
  const { rows, batches } = await drain(cut);
  equal(rows.length, 10);
  deepEqual(batches, [4, 4, 2]);
  equal(cut.truncated, true);
  const exact = await c.query({ sql: "SELECT g FROM generate_series(1, 10) g" }, {
    maxRows: 10,
    batchRows: 5,
  });
  equal((await drain(exact)).rows.length, 10);
  equal(exact.truncated, false);
  equal(c.pool.stats.leased, 0);
});

pgTest(
  "query() aborted mid-statement cancels it on the server and returns the connection",
  async ({ c, admin }) => {
    const [{ pid }] = await drain(await c.query({ sql: "SELECT pg_backend_pid() AS pid" })).then((
      r,
    ) => r.rows.map(([pid]) => ({ pid })));
    const controller = new AbortController();
    const started = Date.now();
    const running = c.query({ sql: "SELECT pg_sleep(60)" }, { signal: controller.signal });
    await eventually(async () => {
      const rows = await admin.unsafe(
        "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%'",
        [pid as number],
      );
      return rows.length > 0;
    }, { what: "pg_sleep to run", ms: 10_000 });
    controller.abort();
    await rejects(running, (e: Error) => e.name === "AbortError");
    ok(Date.now() - started < 30_000);
    const [activity] = await admin.unsafe("SELECT state FROM pg_stat_activity WHERE pid = $1", [
      pid as number,
    ]);
    equal(activity.state, "idle", "the backend stopped running the statement");
    equal(c.pool.stats.idle, 1);
    const again = await drain(await c.query({ sql: "SELECT pg_backend_pid()" }));
    deepEqual(again.rows, [[pid]], "the same connection serves the next statement");
  },
);

pgTest("a stream aborted between batches ends with the abort reason", async ({ c }) => {
  const controller = new AbortController();
  const stream = await c.query({ sql: "SELECT g FROM generate_series(1, 100000) g" }, {
    signal: controller.signal,
    batchRows: 100,
  });
  let seen = 0;
  await rejects(
    (async () => {
      for await (const batch of stream) {
        seen += batch.length;
        controller.abort(new Error("stop here"));
      }
    })(),
    /stop here/,
  );
  equal(seen, 100);
  equal(c.pool.stats.leased, 0);
  deepEqual((await drain(await c.query({ sql: "SELECT 1" }))).rows, [[1]]);
});

pgTest("write() commits all statements or rolls every one back", async ({ c, admin }) => {
  await admin.unsafe("CREATE TABLE w (id int PRIMARY KEY, v text)");
  const ok1 = await c.write([
    { sql: "INSERT INTO w VALUES (:id, :v)", params: { id: 1, v: "a" } },
    { sql: "INSERT INTO w SELECT g, 'b' FROM generate_series(2, 3) g" },
  ]);
  deepEqual(ok1, { committed: true, rolled_back: false, rows_affected: [1, 2] });
  const failure = await c.write([
    { sql: "INSERT INTO w VALUES (10, 'lost')" },
    { sql: "INSERT INTO w VALUES (1, 'duplicate')" },
  ]).then(() => null, (e) => e);
  ok(failure instanceof WriteError);
  deepEqual(failure.outcome, { committed: false, rolled_back: true, rows_affected: [1] });
  match(failure.message, /duplicate key/);
  const rows = await admin.unsafe("SELECT id FROM w ORDER BY id");
  deepEqual(rows.map((r) => r.id), [1, 2, 3]);
  equal(c.pool.stats.leased, 0);
});

pgTest(
  "test() reports the server and introspection lists schemas, tables and columns",
  async ({ c, admin }) => {
    const outcome = await c.test();
    equal(outcome.connected, true);
    match(outcome.server_version ?? "", /^\d+/);
    await admin.unsafe(`
    CREATE SCHEMA sales; CREATE SCHEMA "Mixed";
    CREATE TABLE sales.orders (id bigint PRIMARY KEY, total numeric(10,2));
    COMMENT ON TABLE sales.orders IS 'one row per order';
    COMMENT ON COLUMN sales.orders.id IS 'order number';
    CREATE VIEW sales.big AS SELECT * FROM sales.orders WHERE total > 100;
  `);
    const schemas = await c.schemas({ include: [], cap: 2000 });
    deepEqual(schemas, { items: ["Mixed", "public", "sales"], truncated: false });
    const withInfo = await c.schemas({ include: ["information_schema"], cap: 2000 });
    deepEqual(withInfo.items, ["Mixed", "information_schema", "public", "sales"]);
    deepEqual(await c.schemas({ include: [], cap: 2 }), {
      items: ["Mixed", "public"],
      truncated: true,
    });
    deepEqual(await c.tables({ schema: "sales", include: [], cap: 2000 }), {
      items: [
        { schema: "sales", name: "big", type: "view" },
        { schema: "sales", name: "orders", type: "table", remarks: "one row per order" },
      ],
      truncated: false,
    });
    deepEqual(await c.tables({ schema: "nope", include: [], cap: 2000 }), {
      items: [],
      truncated: false,
    });
    equal((await c.tables({ include: [], cap: 2000 })).items.length, 2);
    equal((await c.tables({ include: [], cap: 1 })).truncated, true);
    deepEqual(await c.columns("orders", "sales"), [
      {
        name: "id",
        type: "bigint",
        source_type: "bigint",
        nullable: false,
        warnings: [],
        remarks: "order number",
        primary_key: 1,
        references: [],
        indexes: [{ name: "orders_pkey", unique: true, position: 1 }],
      },
      {
        name: "total",
        type: "decimal",
        source_type: "numeric(10,2)",
        nullable: true,
        precision: 10,
        scale: 2,
        warnings: [],
        references: [],
        indexes: [],
      },
    ]);
    const missing = await c.columns("order", "sales").catch((e) => e);
    ok(missing instanceof AppError);
    equal(missing.code, "datasource.table_not_found");
    deepEqual(missing.details, { table: "order", schema: "sales", hint: "orders" });
    equal(await c.currentSchema(), "public");
  },
);

Deno.test({
  name: "[postgres] currentSchema follows the jdbc currentSchema property",
  ignore,
  async fn() {
    const db = await freshPostgresDatabase();
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    await admin.unsafe("CREATE SCHEMA app; CREATE TABLE app.t (x int)");
    const c = openConnector(connectorConfig("POSTGRES", pgJdbcUrl(db.url) + "?currentSchema=app"));
    try {
      equal(await c.currentSchema(), "app");
      deepEqual((await c.columns("t")).map((col) => col.name), ["x"]);
    } finally {
      await c.close();
      await admin.end();
      await db.drop();
    }
  },
});

Deno.test("[postgres] a connect that hangs fails at connectionTimeout; test() says timeout", async () => {
  const url = (port: number) => `jdbc:postgresql://127.0.0.1:${port}/db`;
  await assertConnectTimesOut("POSTGRES", url, async (port) => {
    // A caller that gives up does not wait out the connection timeout.
    const patient = openConnector(
      connectorConfig("POSTGRES", url(port), { hikari: { connectionTimeout: 60_000 } }),
    );
    const controller = new AbortController();
    const waiting = patient.query({ sql: "SELECT 1" }, { signal: controller.signal });
    await eventually(() => (patient as PostgresConnector).pool.stats.connecting === 1, {
      what: "the connect to start",
      ms: 10_000,
    });
    controller.abort(new Error("caller left"));
    await rejects(waiting, /caller left/);
    await patient.close();
  });
});

Deno.test("[postgres] test() classifies a refused connection and an unknown database", {
  ignore,
}, async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const refused = openConnector(
    connectorConfig("POSTGRES", `jdbc:postgresql://127.0.0.1:${port}/x`),
  );
  const unknownDb = openConnector(
    connectorConfig("POSTGRES", "jdbc:postgresql://127.0.0.1:5432/no_such_db_here"),
  );
  try {
    const a = await refused.test();
    deepEqual([a.connected, a.error_class], [false, "unreachable"]);
    const b = await unknownDb.test();
    deepEqual([b.connected, b.error_class], [false, "config"]);
    match(b.error ?? "", /no_such_db_here/);
  } finally {
    await refused.close();
    await unknownDb.close();
  }
});
