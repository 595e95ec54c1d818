/**
 * What the file-based connectors (DUCKDB, SQLITE) promise alike, each on a fresh database file:
 * a write commits or rolls back whole, introspection lists the file's own tables, and a mistyped
 * path is refused without creating a file.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { connectorConfig, drain, withFileConnector } from "../../../tests/support/datasources.ts";
import { openConnector } from "./mod.ts";
import { WriteError } from "./types.ts";

const SETUP = "CREATE TABLE t (id INTEGER); CREATE VIEW v AS SELECT id FROM t;";

for (const dialect of ["DUCKDB", "SQLITE"] as const) {
  const tag = `[${dialect.toLowerCase()}]`;

  Deno.test(`${tag} write() commits all or rolls all back`, async () => {
    await withFileConnector(dialect, SETUP, async (c) => {
      deepEqual(
        await c.write([
          { sql: "CREATE TABLE w (id INTEGER PRIMARY KEY, v VARCHAR)" },
          { sql: "INSERT INTO w VALUES (:id, :v), (:id2, :v)", params: { id: 1, id2: 2, v: "a" } },
        ]),
        { committed: true, rolled_back: false, rows_affected: [0, 2] },
      );
      const failed = await c.write([
        { sql: "INSERT INTO w VALUES (3, 'lost')" },
        { sql: "INSERT INTO w VALUES (1, 'duplicate')" },
      ]).catch((e) => e);
      ok(failed instanceof WriteError);
      deepEqual(failed.outcome, { committed: false, rolled_back: true, rows_affected: [1] });
      const { rows } = await drain(await c.query({ sql: "SELECT id FROM w ORDER BY id" }));
      deepEqual(rows.map(([id]) => Number(id)), [1, 2]);
    });
  });

  Deno.test(`${tag} introspection lists the file's own tables; a missing one has a hint`, async () => {
    await withFileConnector(dialect, SETUP, async (c) => {
      equal((await c.test()).connected, true);
      deepEqual(await c.schemas({ include: [], cap: 2000 }), { items: ["main"], truncated: false });
      deepEqual(await c.tables({ include: [], cap: 2000 }), {
        items: [
          { schema: "main", name: "t", type: "table" },
          { schema: "main", name: "v", type: "view" },
        ],
        truncated: false,
      });
      equal((await c.tables({ include: [], cap: 1 })).truncated, true);
      deepEqual(await c.tables({ schema: "nope", include: [], cap: 10 }), {
        items: [],
        truncated: false,
      });
      deepEqual((await c.columns("v")).map((col) => col.name), ["id"]);
      const missing = await c.columns("tt").catch((e) => e);
      ok(missing instanceof AppError);
      deepEqual(missing.details, { table: "tt", schema: "main", hint: "t" });
      equal(await c.currentSchema(), "main");
    });
  });

  Deno.test(`${tag} a missing file is refused, not created`, async () => {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/missing`;
    const c = openConnector(connectorConfig(dialect, `jdbc:${dialect.toLowerCase()}:${path}`));
    try {
      const outcome = await c.test();
      deepEqual([outcome.connected, outcome.error_class], [false, "config"]);
      await rejects(Deno.stat(path));
    } finally {
      await c.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
