import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { skipUnless } from "../../../tests/support/services.ts";
import {
  assertConnectTimesOut,
  connectorConfig,
  drain,
  mariaAdmin,
  mariaConnectorTest,
} from "../../../tests/support/datasources.ts";
import { openConnector } from "./mod.ts";
import { decimalColumn } from "./test_fixtures.ts";
import { WriteError } from "./types.ts";
import { eventually } from "../../../tests/support/wait.ts";

const ignore = skipUnless("mariadb");

mariaConnectorTest(
  "query() streams many rows in batches and returns the connection",
  async ({ c }) => {
    const stream = await c.query({
      sql: "SELECT seq AS n, CONCAT('row ', seq) AS label FROM seq_1_to_25000 WHERE seq <= :max",
      params: { max: 25_000 },
    }, { batchRows: 1000 });
    deepEqual(stream.schema.map((s) => s.name), ["n", "label"]);
    equal(stream.schema[0].type, "bigint");
    const { batches, rows } = await drain(stream);
    equal(batches.length, 25);
    ok(batches.every((b) => b === 1000));
    deepEqual(rows[24_999], [25_000n, "row 25000"]);
    deepEqual(c.pool.stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
    const cut = await c.query({ sql: "SELECT seq FROM seq_1_to_100" }, {
      maxRows: 10,
      batchRows: 4,
    });
    deepEqual((await drain(cut)).batches, [4, 4, 2]);
    equal(cut.truncated, true);
    equal(c.pool.stats.leased, 0);
  },
);

mariaConnectorTest(
  "query() maps every type family and introspection agrees",
  async ({ c, admin }) => {
    await admin.query(`
    CREATE TABLE t (
      b BOOLEAN, ti TINYINT, si SMALLINT, i INT, iu INT UNSIGNED, bi BIGINT, d DECIMAL(12,3),
      f FLOAT, db DOUBLE, s VARCHAR(20) COMMENT 'a label', ch CHAR(3), tx TEXT, dt DATE,
      dtm DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, y YEAR, j JSON, bin VARBINARY(4), bl BLOB,
      e ENUM('a','b'), bt BIT(8), g POINT
    ) COMMENT 'all types';
    INSERT INTO t VALUES (TRUE, -5, 300, -2147483648, 4294967295, 9223372036854775807,
      123456789.125, 1.5, 2.25, 'héllo', 'ab', 'long', '2024-02-29', '2024-02-29 13:14:15.123456',
      '2024-02-29 13:14:15.5', '23:59:58', 2024, '{"a": [1, 2]}', x'00ff', x'0102', 'b', b'101',
      POINT(1, 2));
    INSERT INTO t (b) VALUES (NULL);
  `);
    const stream = await c.query({ sql: "SELECT * FROM t ORDER BY b DESC" });
    deepEqual(stream.schema.map((col) => [col.name, col.type]), [
      ["b", "boolean"],
      ["ti", "integer"],
      ["si", "integer"],
      ["i", "integer"],
      ["iu", "bigint"],
      ["bi", "bigint"],
      ["d", "decimal"],
      ["f", "double"],
      ["db", "double"],
      ["s", "string"],
      ["ch", "string"],
      ["tx", "string"],
      ["dt", "date"],
      ["dtm", "timestamp"],
      ["ts", "timestamptz"],
      ["tm", "time"],
      ["y", "integer"],
      ["j", "json"],
      ["bin", "binary"],
      ["bl", "binary"],
      ["e", "string"],
      ["bt", "binary"],
      ["g", "binary"],
    ]);
    const { rows } = await drain(stream);
    const [full, empty] = rows;
    deepEqual(full.slice(0, 18), [
      true,
      -5,
      300,
      -2147483648,
      4294967295n,
      9223372036854775807n,
      "123456789.125",
      1.5,
      2.25,
      "héllo",
      "ab",
      "long",
      "2024-02-29",
      "2024-02-29T13:14:15.123456",
      "2024-02-29T13:14:15.500Z",
      "23:59:58",
      2024,
      '{"a": [1, 2]}',
    ]);
    deepEqual([...(full[18] as Uint8Array)], [0, 255]);
    equal(full[20], "b");
    deepEqual([...(full[21] as Uint8Array)], [5]);
    ok(empty.every((v) => v === null));

    const cols = Object.fromEntries((await c.columns("t")).map((col) => [col.name, col]));
    deepEqual(cols.d, decimalColumn("decimal(12,3)"));
    deepEqual([cols.s.remarks, cols.b.type, cols.j.type, cols.iu.type, cols.ts.type], [
      "a label",
      "boolean",
      "json",
      "bigint",
      "timestamptz",
    ]);
    equal(cols.g.warnings.length, 1, "a geometry has no wire type");
  },
);

mariaConnectorTest(
  "query() binds values server-side; a hostile value stays a value",
  async ({ c, admin }) => {
    await admin.query("CREATE TABLE victims (name TEXT); INSERT INTO victims VALUES ('kept')");
    const hostile = "x\\'); DROP TABLE victims; -- ";
    const { rows } = await drain(
      await c.query({
        sql: "SELECT :v AS v, :v = :v AS same, ':v' AS lit",
        params: { v: hostile },
      }),
    );
    deepEqual(rows, [[hostile, 1n, ":v"]]);
    const [[{ n }]] = await admin.query("SELECT COUNT(*) AS n FROM victims") as unknown as [
      [{ n: number }],
    ];
    equal(Number(n), 1);
  },
);

mariaConnectorTest(
  "an aborted SLEEP is killed on the server and the connection comes back",
  async ({ c, admin }) => {
    const [[threadId]] = (await drain(await c.query({ sql: "SELECT CONNECTION_ID()" }))).rows;
    const controller = new AbortController();
    const running = c.query({ sql: "SELECT SLEEP(60) AS slept" }, { signal: controller.signal });
    const processlist = async () => {
      const [rows] = await admin.query(
        "SELECT STATE, INFO FROM information_schema.PROCESSLIST WHERE ID = ?",
        [Number(threadId)],
      );
      return (rows as { STATE: string; INFO: string | null }[])[0];
    };
    // The statement is prepared before it is executed, and its text shows in the process list
    // during both: only the sleep itself is the state this test cancels.
    await eventually(async () => (await processlist())?.STATE === "User sleep", {
      what: "SLEEP to run",
      ms: 10_000,
    });
    controller.abort();
    await rejects(running, (e: Error) => e.name === "AbortError");
    const after = await processlist();
    equal(after.INFO, null, "the server stopped the statement");
    equal(c.pool.stats.idle, 1);
    deepEqual((await drain(await c.query({ sql: "SELECT CONNECTION_ID()" }))).rows, [[threadId]]);
  },
);

mariaConnectorTest(
  "a stream broken off early kills its statement and frees the connection",
  async ({ c, admin }) => {
    const stream = await c.query({ sql: "SELECT seq FROM seq_1_to_5000000" }, { batchRows: 100 });
    for await (const batch of stream) {
      equal(batch.length, 100);
      break;
    }
    equal(c.pool.stats.leased, 0);
    await eventually(async () => {
      const [rows] = await admin.query(
        "SELECT 1 FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT seq FROM seq_1_to_5000000%'",
      );
      return (rows as unknown[]).length === 0;
    }, { what: "the server to stop the statement", ms: 10_000 });
    deepEqual((await drain(await c.query({ sql: "SELECT 1" }))).rows, [[1n]]);
  },
);

mariaConnectorTest("write() commits everything or rolls everything back", async ({ c, admin }) => {
  await admin.query("CREATE TABLE w (id INT PRIMARY KEY, v TEXT) ENGINE=InnoDB");
  deepEqual(
    await c.write([
      { sql: "INSERT INTO w VALUES (:id, :v)", params: { id: 1, v: "a" } },
      { sql: "INSERT INTO w VALUES (2, 'b'), (3, 'c')" },
    ]),
    { committed: true, rolled_back: false, rows_affected: [1, 2] },
  );
  const failed = await c.write([
    { sql: "INSERT INTO w VALUES (10, 'lost')" },
    { sql: "INSERT INTO w VALUES (1, 'duplicate')" },
  ]).catch((e) => e);
  ok(failed instanceof WriteError);
  deepEqual(failed.outcome, { committed: false, rolled_back: true, rows_affected: [1] });
  match(failed.message, /Duplicate entry/);
  const [rows] = await admin.query("SELECT id FROM w ORDER BY id");
  deepEqual((rows as { id: number }[]).map((r) => r.id), [1, 2, 3]);
});

mariaConnectorTest(
  "test() and introspection: system schemas excluded, include honoured, case-exact",
  async ({ c, admin, db }) => {
    const outcome = await c.test();
    equal(outcome.connected, true);
    match(outcome.server_version ?? "", /MariaDB|^\d/);
    await admin.query(
      "CREATE TABLE Orders (id INT NOT NULL) COMMENT 'per order'; CREATE VIEW big AS SELECT id FROM Orders",
    );
    const schemas = await c.schemas({ include: [], cap: 2000 });
    ok(schemas.items.includes(db));
    for (const system of ["mysql", "sys", "performance_schema", "information_schema"]) {
      ok(!schemas.items.includes(system), system);
    }
    ok(
      (await c.schemas({ include: ["information_schema"], cap: 2000 })).items.includes(
        "information_schema",
      ),
    );
    equal((await c.schemas({ include: [], cap: 1 })).truncated, true);
    deepEqual(await c.tables({ schema: db, include: [], cap: 2000 }), {
      items: [
        { schema: db, name: "big", type: "view" },
        { schema: db, name: "Orders", type: "table", remarks: "per order" },
      ],
      truncated: false,
    });
    deepEqual(await c.tables({ schema: "no_such_schema", include: [], cap: 10 }), {
      items: [],
      truncated: false,
    });
    deepEqual((await c.columns("Orders")).map((col) => [col.name, col.type, col.nullable]), [[
      "id",
      "integer",
      false,
    ]]);
    const wrongCase = await c.columns("orders").catch((e) => e);
    ok(wrongCase instanceof AppError);
    deepEqual(wrongCase.details, { table: "orders", schema: db, hint: "Orders" });
    equal(await c.currentSchema(), db);
  },
);

Deno.test({
  name: "[mariadb] test() classifies wrong passwords and unknown databases",
  ignore,
  async fn() {
    const admin = await mariaAdmin();
    const user = `svc_${crypto.randomUUID().slice(0, 8)}`;
    await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-secret'`);
    await admin.query(`CREATE USER '${user}'@'localhost' IDENTIFIED BY 'right-secret'`);
    try {
      const wrong = openConnector(
        connectorConfig("MYSQL", "jdbc:mysql://127.0.0.1:3306/test", {
          username: user,
          secret: "wrong-secret",
        }),
      );
      const right = openConnector(
        connectorConfig("MYSQL", "jdbc:mysql://127.0.0.1:3306", {
          username: user,
          secret: "right-secret",
        }),
      );
      const noDb = openConnector(
        connectorConfig("MYSQL", "jdbc:mysql://127.0.0.1:3306/no_such_db_x", { username: "root" }),
      );
      const a = await wrong.test();
      deepEqual([a.connected, a.error_class], [false, "auth"]);
      ok(!(a.error ?? "").includes("wrong-secret"));
      equal((await right.test()).connected, true);
      equal(await right.currentSchema(), null, "no database in the URL: no current schema");
      const noSchema = await right.columns("t").catch((e) => e);
      ok(noSchema instanceof AppError);
      deepEqual([noSchema.code, noSchema.details], ["pipeline.execution.parameter_required", {
        parameter: "schema",
      }]);
      const b = await noDb.test();
      deepEqual([b.connected, b.error_class], [false, "config"]);
      await Promise.all([wrong.close(), right.close(), noDb.close()]);
    } finally {
      await admin.query(`DROP USER '${user}'@'%'`);
      await admin.query(`DROP USER '${user}'@'localhost'`);
      await admin.end();
    }
  },
});

Deno.test("[mariadb] a connect that hangs fails at connectionTimeout", async () => {
  await assertConnectTimesOut("MYSQL", (port) => `jdbc:mysql://127.0.0.1:${port}/db`);
});
