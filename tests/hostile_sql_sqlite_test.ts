/**
 * Issue 11, SQLite: author SQL reaches only its own database. Every escape below is run through
 * every path that runs author SQL on SQLite (SQLite staging, a writable and a read-only SQLite
 * datasource, release checks, the probe; row previews take only listed names) and each must be refused by SQLite's own authorizer,
 * with nothing written anywhere: no file where an escape aimed one, the datasource files as they
 * were, the metadata store's users as they were (the author is not made a super admin).
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { AppError } from "../src/errors/mod.ts";
import { forEachStoreKind } from "./support/stores.ts";
import {
  fileState,
  type HostileWorld,
  withHostileWorld,
} from "./support/sqlite_hostile_fixtures.ts";
import { call } from "./support/harness.ts";

/** [name, SQL]: reaching another file, changing the connection's rules, loading code. */
function escapes(w: HostileWorld): [string, string][] {
  const at = (name: string) => `${w.escapeDir}/${name}.db`;
  return [
    ["ATTACH DATABASE the metadata store", `ATTACH DATABASE '${w.serviceDb}' AS m`],
    ["ATTACH a new file", `ATTACH '${at("a")}' AS a`],
    ["attach in lower case", `attach database '${at("b")}' as b`],
    ["ATTACH a file: URI with mode=rwc", `ATTACH 'file:${at("c")}?mode=rwc' AS c`],
    ["ATTACH a computed path", `ATTACH '${w.escapeDir}/' || 'd' || '.db' AS d`],
    ["ATTACH after a comment", `/* x */ ATTACH '${at("e")}' AS e`],
    ["DETACH", "DETACH DATABASE m"],
    ["VACUUM INTO a file", `VACUUM INTO '${at("f")}'`],
    ["VACUUM", "VACUUM"],
    ["PRAGMA writable_schema", "PRAGMA writable_schema = 1"],
    ["PRAGMA query_only off", "PRAGMA query_only = 0"],
    ["PRAGMA journal_mode", "PRAGMA journal_mode = WAL"],
    ["PRAGMA user_version (the file header)", "PRAGMA main.user_version = 7"],
    ["load_extension", `SELECT load_extension('${at("g")}')`],
  ];
}

/** Writes a read-only datasource must refuse, DQL nodes included. */
const WRITES: [string, string][] = [
  ["DELETE", "DELETE FROM orders"],
  ["WITH … DELETE", "WITH doomed AS (SELECT id FROM orders) DELETE FROM orders"],
  ["INSERT", "INSERT INTO orders VALUES (3, 3)"],
  ["UPDATE … RETURNING", "UPDATE orders SET amount = 0 RETURNING id"],
  ["REPLACE", "REPLACE INTO orders VALUES (1, 1)"],
  ["CREATE TABLE", "CREATE TABLE planted (a)"],
  ["CREATE TEMP TRIGGER", "CREATE TEMP TRIGGER t AFTER INSERT ON orders BEGIN SELECT 1; END"],
  ["DROP TABLE", "DROP TABLE orders"],
];

const dql = (source: string, sql: string) => [{ id: "n", type: "DQL", source, sql }];
const SQLITE_STAGING = { settings: { staging_engine: "sqlite" } };

async function assertNothingWritten(w: HostileWorld, before: unknown[]): Promise<void> {
  const left = [];
  for await (const entry of Deno.readDir(w.escapeDir)) left.push(entry.name);
  deepEqual(left, [], "no escape may create a file");
  deepEqual([fileState(w.files.wh), fileState(w.files.ro)], before);
  for (const path of Object.values(w.files)) {
    await rejects(Deno.stat(`${path}-wal`), Deno.errors.NotFound);
  }
  if (w.s.runtime.config.store.kind === "postgres") {
    await rejects(Deno.stat(w.serviceDb), Deno.errors.NotFound);
  }
  const admin = await w.s.runtime.db.first<{ is_admin: unknown }>(
    "SELECT is_admin FROM users WHERE id = $1",
    [w.f.users.author.id],
  );
  equal(Boolean(admin?.is_admin), false, "the author is not a super admin");
}

async function refusedInRun(
  w: HostileWorld,
  label: string,
  nodes: unknown[],
  extra = {},
  why = /not authorized/,
) {
  const out = await w.run(nodes, extra);
  // On a read-only datasource the engine's read-only rule refuses first, as the datasource's rule.
  if (out.code === "pipeline.node.readonly_datasource" && label.startsWith("ro:")) {
    equal(out.reason, "engine_refused", `${label}: ${JSON.stringify(out)}`);
    return;
  }
  equal(out.code, "pipeline.node.statement_failed", `${label}: ${JSON.stringify(out)}`);
  match(out.reason ?? "", why, `${label}: ${out.reason}`);
}

/** In a DML node's transaction SQLite refuses VACUUM before the authorizer is asked. */
const IN_TRANSACTION = /not authorized|cannot VACUUM from within a transaction/;

forEachStoreKind(
  "hostile SQL through SQLite staging and SQLite datasources is refused by the engine",
  (store) =>
    withHostileWorld(store, async (w) => {
      const before = [fileState(w.files.wh), fileState(w.files.ro)];
      // What a well-behaved author needs still works on every path.
      deepEqual((await w.run(dql("tempdb", "SELECT 1 AS x"), SQLITE_STAGING)).rows, [[1]]);
      for (const source of ["wh", "ro"]) {
        deepEqual(
          (await w.run(dql(source, "SELECT count(*) AS n FROM orders"))).rows,
          [[2]],
        );
        deepEqual(
          (await w.run(dql(source, "SELECT name FROM pragma_table_info('orders') ORDER BY cid")))
            .rows,
          [["id"], ["amount"]],
        );
      }

      for (const [label, sql] of escapes(w)) {
        await refusedInRun(w, `staging: ${label}`, dql("tempdb", sql), SQLITE_STAGING);
        await refusedInRun(w, `wh: ${label}`, dql("wh", sql));
        await refusedInRun(w, `ro: ${label}`, dql("ro", sql));
      }
      for (const [label, sql] of WRITES) await refusedInRun(w, `ro: ${label}`, dql("ro", sql));
      // DML and DDL nodes on the writable datasource: writes yes, escapes no.
      const statement = (type: string, sql: string) => [{ id: "n", type, source: "wh", sql }];
      equal((await w.run(statement("DML", "UPDATE orders SET amount = amount"))).code, undefined);
      for (const [label, sql] of escapes(w)) {
        await refusedInRun(w, `wh DML: ${label}`, statement("DML", sql), {}, IN_TRANSACTION);
        await refusedInRun(w, `wh DDL: ${label}`, statement("DDL", sql), {}, IN_TRANSACTION);
      }

      // The issue's own two steps: attach the metadata store, then make oneself an admin.
      const email = w.f.users.author.email.replaceAll("'", "''");
      await refusedInRun(w, "attach then update", [
        {
          id: "attach",
          type: "DQL",
          source: "tempdb",
          sql: `ATTACH '${w.serviceDb}' AS m`,
          output: { target: "tempdb", table: "attached" },
        },
        {
          id: "promote",
          type: "DQL",
          source: "tempdb",
          depends_on: ["attach"],
          sql: `UPDATE m.users SET is_admin = 1 WHERE email = '${email}'`,
        },
      ], SQLITE_STAGING);

      await assertNothingWritten(w, before);
    }),
);

forEachStoreKind(
  "hostile SQL in release checks and the probe is refused on SQLite datasources",
  (store) =>
    withHostileWorld(store, async (w) => {
      const before = [fileState(w.files.wh), fileState(w.files.ro)];
      const viewer = w.f.users.author.principal;
      const scope = {
        id: w.f.workspace.id,
        name: "acme",
        flags: { author: true, promoter: false, admin: false },
        implicit: false,
      };
      const hostile = [...escapes(w), ...WRITES];
      for (const source of ["wh", "ro"]) {
        for (const [label, sql] of hostile) {
          await rejects(w.s.runtime.connections.probe(viewer, scope, source, { sql }), (e) => {
            ok(e instanceof AppError, `${source} ${label}: ${e}`);
            equal(
              e.code,
              "datasource.probe.not_read_only",
              `${source} ${label} ${JSON.stringify(e.details)}`,
            );
            return true;
          });
        }
        // The lexical gate lets a SELECT through; SQLite's authorizer is what refuses this one.
        await rejects(
          w.s.runtime.connections.probe(viewer, scope, source, {
            sql: `SELECT load_extension('${w.escapeDir}/x')`,
          }),
          (e) => e instanceof AppError && e.details.reason === "engine_refused",
        );
      }

      // Row previews never run author SQL: a name reaches SQL only as one the catalogue listed.
      for (const source of ["wh", "ro"]) {
        deepEqual(
          (await w.s.runtime.connections.previewRows(viewer, scope, source, { table: "orders" }))
            .rows,
          [["1", "10"], ["2", "32"]],
        );
        for (
          const target of [
            { table: `orders"; ATTACH '${w.escapeDir}/p.db' AS p; --` },
            { schema: `main" ; ATTACH '${w.escapeDir}/q.db' AS q; --`, table: "orders" },
          ]
        ) {
          await rejects(
            w.s.runtime.connections.previewRows(viewer, scope, source, target),
            (e) => e instanceof AppError && e.code.startsWith("datasource."),
          );
        }
      }

      const checks = hostile.flatMap(([label, sql], i) =>
        ["wh", "ro"].map((datasource) => ({
          id: `c${i}_${datasource}`,
          name: `${datasource}: ${label}`,
          datasource,
          query: sql,
          expectation: { kind: "value", value: 1 },
        }))
      );
      checks.push({
        id: "fine",
        name: "a good check",
        datasource: "ro",
        query: "SELECT count(*) FROM orders",
        expectation: { kind: "value", value: 2 },
      });
      const id = await w.create(dql("wh", "SELECT 1 AS x"), { checks });
      const ran = await call(
        w.s,
        "POST",
        `/api/v1/pipelines/${id}/versions/1/checks/run`,
        w.author,
      );
      equal(ran.status, 200, JSON.stringify(ran.body));
      const runs = ran.body.data.runs as { check_id: string; verdict: string; message: string }[];
      equal(runs.length, checks.length);
      for (const r of runs) {
        if (r.check_id === "fine") {
          equal(r.verdict, "pass");
          continue;
        }
        equal(r.verdict, "error", `${r.check_id}: ${r.message}`);
        match(r.message, /datasource\.probe\.not_read_only/, r.check_id);
      }
      await assertNothingWritten(w, before);
    }),
);
