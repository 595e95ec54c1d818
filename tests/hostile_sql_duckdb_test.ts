/**
 * Hostile author SQL against every DuckDB path that runs it, through the real app over HTTP, on
 * both stores: a DQL node on the staging database, on a DuckDB datasource (writable and
 * read-only) and on a LAKE; a DML node on the writable DuckDB datasource; release checks (the
 * bounded probe) on the three datasources; and a view created to be previewed later. Every escape
 * of issue 11 is refused, and nothing was read (a marker planted beside the server's secrets
 * never appears, nor do the secrets), written (every target path is absent afterwards) or
 * contacted (a local listener saw no connection). Each path still answers a plain read after.
 */
import { equal, ok, rejects } from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { AppError } from "../src/errors/mod.ts";
import type { EventFrame } from "../src/executions/event_order.ts";
import type { WorkspaceContext } from "../src/identity/types.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { frames } from "./support/executions_fixtures.ts";
import { registerWithLakeOrders, writeParquet } from "./support/lake.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { dql } from "./support/pipeline_body.ts";

interface Places {
  dataDir: string;
  /** The metadata database (on PostgreSQL where an embedded install would keep it). */
  serviceDb: string;
  marker: string;
  markerFile: string;
  /** The server's own generated secrets (the embedded store's quick start), as stored. */
  secrets: string[];
  /** Where written files would land; must stay empty. */
  out: string;
  port: number;
  roFile: string;
}

/** `kind` says what the refusal must be: the sandbox's own ("refused") or any failure. */
type Case = { name: string; sql: (p: Places) => string; kind: "refused" | "any" };

const CASES: Case[] = [
  {
    name: "read_text of a file beside the secrets",
    sql: (p) => `SELECT content FROM read_text('${p.markerFile}')`,
    kind: "refused",
  },
  {
    name: "read_text of the JWT secret",
    sql: (p) => `SELECT content FROM read_text('${p.dataDir}/secrets/jwt_secret')`,
    kind: "refused",
  },
  {
    name: "read_blob of the metadata database",
    sql: (p) => `SELECT content FROM read_blob('${p.serviceDb}*')`,
    kind: "refused",
  },
  {
    name: "read_csv of /etc/passwd",
    sql: () => "SELECT * FROM read_csv('/etc/passwd')",
    kind: "refused",
  },
  {
    name: "read_parquet outside the allowed files",
    sql: (p) => `SELECT * FROM read_parquet('${p.dataDir}/outside.parquet')`,
    kind: "refused",
  },
  {
    name: "read_json outside the allowed files",
    sql: (p) => `SELECT * FROM read_json('${p.dataDir}/outside.json')`,
    kind: "refused",
  },
  {
    name: "glob of the data directory",
    sql: (p) => `SELECT file FROM glob('${p.dataDir}/**')`,
    kind: "refused",
  },
  { name: "getenv", sql: () => "SELECT getenv('HOME') AS h", kind: "any" },
  {
    name: "read_text over HTTP",
    sql: (p) => `SELECT content FROM read_text('http://127.0.0.1:${p.port}/x')`,
    kind: "refused",
  },
  { name: "INSTALL httpfs", sql: () => "INSTALL httpfs", kind: "refused" },
  { name: "LOAD httpfs", sql: () => "LOAD httpfs", kind: "refused" },
  {
    name: "INSTALL from an author's URL",
    sql: (p) => `INSTALL x FROM 'http://127.0.0.1:${p.port}/'`,
    kind: "refused",
  },
  {
    name: "SET enable_external_access",
    sql: () => "SET enable_external_access = true",
    kind: "refused",
  },
  { name: "SET threads", sql: () => "SET threads = 1", kind: "refused" },
  { name: "RESET lock_configuration", sql: () => "RESET lock_configuration", kind: "refused" },
  { name: "ATTACH a file", sql: (p) => `ATTACH '${p.out}/attached.duckdb' AS x`, kind: "refused" },
  {
    name: "ATTACH ':memory:' under an alias",
    sql: () => "ATTACH ':memory:' AS m",
    kind: "refused",
  },
  {
    name: "COPY … TO",
    sql: (p) => `COPY (SELECT 42 AS a) TO '${p.out}/copy.csv'`,
    kind: "refused",
  },
  {
    name: "COPY … TO the read-only file's WAL",
    sql: (p) => `COPY (SELECT 'junk' AS a) TO '${p.roFile}.wal'`,
    kind: "refused",
  },
  { name: "IMPORT DATABASE", sql: (p) => `IMPORT DATABASE '${p.dataDir}'`, kind: "refused" },
  { name: "USE another catalog", sql: () => "USE system", kind: "refused" },
  {
    name: "a second statement behind a read",
    sql: () => "SELECT 1 AS a; ATTACH ':memory:' AS m",
    kind: "any",
  },
  { name: "EXPORT DATABASE", sql: (p) => `EXPORT DATABASE '${p.out}/export'`, kind: "refused" },
  { name: "PRAGMA enable_profiling", sql: () => "PRAGMA enable_profiling", kind: "refused" },
  { name: "PRAGMA enable_verification", sql: () => "PRAGMA enable_verification", kind: "refused" },
  {
    name: "enable_logging to a file (bypasses the lock)",
    sql: (p) => `CALL enable_logging(storage = 'file', storage_path = '${p.out}/logs')`,
    kind: "refused",
  },
  {
    name: "enable_logging assembled at run time through query()",
    sql: (p) =>
      `SELECT * FROM query('SELECT * FROM enable_' || 'logging(storage=''file'', storage_path=''${p.out}/logs2'')')`,
    kind: "refused",
  },
  {
    name: "json_execute_serialized_sql",
    sql: (p) =>
      `SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT content FROM read_text(''${p.markerFile}'')'))`,
    kind: "refused",
  },
];

/** A loopback listener that counts every connection it is offered. */
function listener() {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  (async () => {
    for await (const c of l) {
      connections++;
      c.close();
    }
  })().catch(() => {});
  return { port: (l.addr as Deno.NetAddr).port, count: () => connections, close: () => l.close() };
}

interface World {
  s: TestServer;
  places: Places;
  author: Record<string, string>;
  /** `datasources_preview_rows` as the author calls it (no REST route: a tool). */
  preview(datasource: string, target: { schema?: string; table: string }): Promise<unknown[][]>;
}

async function run(w: World, node: Record<string, unknown>): Promise<EventFrame[]> {
  const created = await call(w.s, "POST", "/api/v1/pipelines", w.author, {
    name: `hostile/${crypto.randomUUID().slice(0, 8)}`,
    nodes: [{ id: "n", ...node }],
  });
  equal(created.status, 201, JSON.stringify(created.body));
  const res = await w.s.fetch(`/api/v1/pipelines/${created.body.data.id}/execute`, {
    method: "POST",
    headers: { ...w.author, accept: "text/event-stream", "content-type": "application/json" },
    body: "{}",
  });
  equal(res.status, 200);
  return await frames(res).rest();
}

/** No marker, no secret: the text of everything the author got back. */
function assertNothingRead(w: World, text: string, what: string) {
  ok(!text.includes(w.places.marker), `${what}: the marker leaked`);
  for (const secret of w.places.secrets) ok(!text.includes(secret), `${what}: a secret leaked`);
  ok(!text.includes("root:x:0:0"), `${what}: /etc/passwd leaked`);
  ok(!text.includes("SQLite format 3"), `${what}: the metadata database leaked`);
}

function assertRefused(w: World, c: Case, path: string, events: EventFrame[]) {
  const what = `${path} / ${c.name}`;
  const failed = events.find((e) => e.event === "pipeline_failed");
  ok(failed, `${what}: not refused: ${JSON.stringify(events.map((e) => e.event))}`);
  ok(!events.some((e) => e.event === "data_ready"), `${what}: data came back`);
  assertNothingRead(w, JSON.stringify(events), what);
  const error = failed.data.error as { code: string; details: Record<string, unknown> };
  if (c.kind === "refused") {
    // On a read-only datasource every statement runs under the read-only rule, which refuses a
    // non-read as the datasource's rule (pipeline.node.readonly_datasource) before the sandbox.
    ok(
      error.details.error_class === "refused" ||
        error.code === "pipeline.execution.invalid_parameter_type" ||
        (error.code === "pipeline.node.readonly_datasource" &&
          error.details.reason === "engine_refused"),
      `${what}: ${JSON.stringify(error)}`,
    );
  }
}

const PATHS: { name: string; node: (sql: string) => Record<string, unknown> }[] = [
  { name: "staging DQL", node: (sql) => ({ type: "DQL", source: "tempdb", sql }) },
  { name: "DuckDB DQL", node: (sql) => ({ type: "DQL", source: "duck", sql }) },
  { name: "read-only DuckDB DQL", node: (sql) => ({ type: "DQL", source: "duck_ro", sql }) },
  { name: "LAKE DQL", node: (sql) => ({ type: "DQL", source: "lake", sql }) },
  { name: "DuckDB DML", node: (sql) => ({ type: "DML", source: "duck", sql }) },
];

async function setUp(s: TestServer): Promise<World & { admin: Record<string, string> }> {
  const dataDir = s.runtime.config.dataDir;
  const marker = `MARKER-${crypto.randomUUID()}`;
  await Deno.mkdir(`${dataDir}/secrets`, { recursive: true });
  const markerFile = `${dataDir}/secrets/marker`;
  await Deno.writeTextFile(markerFile, marker);
  await Deno.writeTextFile(`${dataDir}/outside.json`, JSON.stringify({ v: marker }));
  await writeParquet(`${dataDir}/outside.parquet`, `SELECT '${marker}' AS v`);
  const out = `${dataDir}/out`;
  await Deno.mkdir(out);
  // The datasources' files live in the data directory, as the demo's does: their siblings (the
  // secrets, the metadata database) must stay out of reach.
  for (const name of ["shop", "ro"]) {
    const db = await DuckDBInstance.create(`${dataDir}/${name}.duckdb`);
    const conn = await db.connect();
    await conn.run("CREATE TABLE orders AS SELECT 1 AS id, 9.5 AS amount");
    conn.closeSync();
    db.closeSync();
  }
  await Deno.mkdir(`${dataDir}/lake/sales`, { recursive: true });
  await writeParquet(`${dataDir}/lake/sales/orders.parquet`, "SELECT 1 AS id, 9.5 AS amount");

  const fx = await seedRoles(s.runtime);
  const admin = await sessionHeaders(s.runtime, fx.users.super_admin, "acme");
  await registerWithLakeOrders(s, admin, [
    { name: "duck", dialect: "DUCKDB", jdbc_url: `jdbc:duckdb:${dataDir}/shop.duckdb` },
    {
      name: "duck_ro",
      dialect: "DUCKDB",
      jdbc_url: `jdbc:duckdb:${dataDir}/ro.duckdb`,
      readonly: true,
    },
    {
      name: "lake",
      dialect: "LAKE",
      jdbc_url: `jdbc:lake:file://${dataDir}/lake`,
      credential: { kind: "none" },
    },
  ], `file://${dataDir}/lake/sales/orders.parquet`);
  const author = await sessionHeaders(s.runtime, fx.users.author, "acme");
  const scope: WorkspaceContext = {
    id: fx.workspace.id,
    name: "acme",
    flags: { author: true, promoter: false, admin: false },
    implicit: false,
  };
  return {
    s,
    admin,
    author,
    preview: async (datasource, target) =>
      (await s.runtime.connections.previewRows(
        fx.users.author.principal,
        scope,
        datasource,
        target,
      )).rows,
    places: {
      dataDir,
      serviceDb: s.runtime.config.store.url.startsWith("sqlite:")
        ? s.runtime.config.store.url.slice("sqlite:".length)
        : `${dataDir}/service.db`,
      marker,
      markerFile,
      secrets: await generatedSecrets(dataDir),
      out,
      port: 0,
      roFile: `${dataDir}/ro.duckdb`,
    },
  };
}

async function generatedSecrets(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of ["jwt_secret", "encryption_key"]) {
    const text = await Deno.readTextFile(`${dataDir}/secrets/${name}`).catch(() => "");
    if (text.trim()) out.push(text.trim());
  }
  return out;
}

async function assertNothingWritten(w: World) {
  const written = [];
  for await (const e of Deno.readDir(w.places.out)) written.push(e.name);
  equal(written.join(","), "", "files were written");
  const wal = await Deno.stat(`${w.places.roFile}.wal`).then(() => true, () => false);
  ok(!wal, "the read-only file got a WAL");
}

forEachStoreKind(
  "hostile SQL is refused on every DuckDB path and reaches nothing",
  async (store) => {
    const net = listener();
    // Some 150 pipelines are created and run within seconds: above the default per-user budget.
    const s = await startTestServer({
      store,
      env: {
        SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
        SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "100000",
      },
    });
    try {
      const w = await setUp(s);
      w.places.port = net.port;
      if (store === "sqlite") equal(w.places.secrets.length, 2, "the quick start generated both");

      for (const path of PATHS) {
        for (const c of CASES) {
          assertRefused(w, c, path.name, await run(w, path.node(c.sql(w.places))));
        }
        // The instance still works: nothing above broke it or changed its settings.
        const select = path.name.startsWith("LAKE")
          ? "SELECT count(*) AS n FROM sales.orders"
          : "SELECT 1 AS n";
        if (!path.name.endsWith("DML")) {
          const good = await run(w, path.node(select));
          const ready = good.find((e) => e.event === "data_ready");
          ok(ready, `${path.name}: a plain read failed after the hostile ones`);
        }
      }

      // Release checks run through the bounded probe: the observed value never carries a file.
      for (const datasource of ["duck", "duck_ro", "lake"]) {
        const created = await call(s, "POST", "/api/v1/pipelines", w.author, {
          name: `hostile/checks_${datasource}`,
          nodes: [dql("n", { source: "tempdb", sql: "SELECT 1 AS x" })],
          checks: CASES.map((c, i) => ({
            id: `c${i}`,
            name: c.name,
            datasource,
            query: c.sql(w.places),
            expectation: { kind: "value", value: 1 },
          })),
        });
        equal(created.status, 201, JSON.stringify(created.body));
        const runs = await call(
          s,
          "POST",
          `/api/v1/pipelines/${created.body.data.id}/versions/1/checks/run`,
          w.author,
        );
        equal(runs.status, 200, JSON.stringify(runs.body));
        for (
          const [i, r] of (runs.body.data.runs as { verdict: string; observed: unknown }[])
            .entries()
        ) {
          equal(r.verdict, "error", `${datasource} check ${CASES[i].name}: ${JSON.stringify(r)}`);
          equal(r.observed, null);
          ok(
            /datasource\.probe\.(statement_failed|not_read_only)|invalid_parameter_type/.test(
              String((r as { message?: string }).message),
            ),
            `${datasource} check ${CASES[i].name}: ${JSON.stringify(r)}`,
          );
        }
        assertNothingRead(w, JSON.stringify(runs.body), `${datasource} checks`);
      }

      // A view built to be previewed later is refused when it is created.
      const view = await run(w, {
        type: "DDL",
        source: "duck",
        sql: `CREATE VIEW leak AS SELECT content FROM read_text('${w.places.markerFile}')`,
      });
      assertRefused(w, CASES[0], "DuckDB DDL view", view);

      // Row previews quote only names the listings show: a hostile name is no table.
      for (
        const [datasource, schema] of [["duck", "main"], ["duck_ro", "main"], ["lake", "sales"]]
      ) {
        equal((await w.preview(datasource, { schema, table: "orders" })).length, 1, datasource);
        for (
          const table of [
            `orders"; ATTACH ':memory:' AS m; --`,
            `orders" UNION SELECT content FROM read_text('${w.places.markerFile}') --`,
          ]
        ) {
          await rejects(w.preview(datasource, { schema, table }), (e) => {
            ok(e instanceof AppError, String(e));
            // A LAKE's columns() lists nothing for an unknown table, so its preview runs the
            // (correctly quoted) statement and the engine finds no such table.
            const expected = datasource === "lake"
              ? ["datasource.table_not_found", "datasource.probe.statement_failed"]
              : ["datasource.table_not_found"];
            ok(expected.includes(e.code), `${datasource}: ${e.code}`);
            ok(!JSON.stringify(e.details).includes(w.places.marker));
            return true;
          });
        }
      }

      // The refusal is the same whether the file exists or not: it tells nothing about the disk.
      const reasonFor = async (file: string) => {
        const events = await run(w, PATHS[0].node(`SELECT content FROM read_text('${file}')`));
        const failed = events.find((e) => e.event === "pipeline_failed")!;
        const error = failed.data.error as { details: { reason: string } };
        return error.details.reason.replaceAll(file, "<file>");
      };
      equal(
        await reasonFor(w.places.markerFile),
        await reasonFor(`${w.places.dataDir}/secrets/absent`),
      );

      await assertNothingWritten(w);
      equal(net.count(), 0, "the server contacted the author's listener");
    } finally {
      await s.close();
      net.close();
    }
  },
);
