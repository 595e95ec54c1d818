/**
 * Every tool's hints checked against what it did (docs/mcp.md#annotations): each of the 41 tools is
 * called twice with the same arguments over the official SDK client, and the metadata store and
 * the SQLite datasource the pipelines write to are compared around each call. A read-only tool
 * changes nothing; a tool that is not destructive only adds rows (it never changes or removes
 * one); an idempotent tool's second call changes nothing, and a tool that is not idempotent has a
 * second call that is refused or changes something again. A destructive tool is seen to change or
 * remove something, so no hint is stronger than the tool. Both stores; the revision follows the
 * store.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { CATALOGUE } from "../src/mcp/mod.ts";
import { adminScope, seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { writeParquet } from "./support/lake.ts";
import { connect, type Json, keyHeaders, SLOW, type ToolClient } from "./support/mcp_client.ts";
import { dql, teamPipeline } from "./support/pipeline_body.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

/**
 * Bookkeeping no hint is about, left out of the comparison: the audit trail (every call adds to
 * it) and when and whence a key was last used.
 */
const IGNORED: Record<string, string[] | "all"> = {
  audit_log: "all",
  api_keys: ["last_used_at", "last_used_ip"],
};

type Snapshot = Map<string, Set<string>>;

async function tables(s: TestServer): Promise<string[]> {
  const db = s.runtime.db;
  const rows = db.dialect === "sqlite"
    ? await db.query<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    : await db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables " +
        "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
    );
  return rows.map((r) => r.name).sort();
}

/** Every row of the store and of the datasource file, as text, per table. */
async function snapshot(s: TestServer, warehouse: string): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const table of await tables(s)) {
    const ignored = IGNORED[table];
    if (ignored === "all") continue;
    const rows = await s.runtime.db.query<Record<string, unknown>>(`SELECT * FROM ${table}`);
    out.set(
      `store.${table}`,
      new Set(rows.map((r) => {
        for (const column of ignored ?? []) delete r[column];
        return JSON.stringify(r, (_k, v) => typeof v === "bigint" ? String(v) : v);
      })),
    );
  }
  const db = new DatabaseSync(warehouse, { readOnly: true });
  try {
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    for (const { name } of names as { name: string }[]) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).all();
      out.set(`warehouse.${name}`, new Set(rows.map((r) => JSON.stringify(r))));
    }
  } finally {
    db.close();
  }
  return out;
}

/** A status a tool exists to refresh: rows of `table` changed only in `columns`. */
interface Refresh {
  table: string;
  columns: RegExp;
}

/**
 * What changed between two snapshots: the tables that gained rows, and those where rows were
 * changed or removed — but for a row that only refreshed a status, which counts as added.
 */
function diff(
  before: Snapshot,
  after: Snapshot,
  refresh?: Refresh,
): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  const kept = (row: string) =>
    JSON.stringify(
      Object.fromEntries(
        Object.entries(JSON.parse(row)).filter(([k]) => !refresh?.columns.test(k)),
      ),
    );
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(name) ?? new Set();
    const is = after.get(name) ?? new Set();
    const refreshed = name === refresh?.table ? new Set([...is].map(kept)) : new Set();
    for (const row of is) if (!was.has(row)) added.push(name);
    for (const row of was) if (!is.has(row) && !refreshed.has(kept(row))) removed.push(name);
  }
  return { added, removed };
}

interface Step {
  tool: string;
  args: Json | (() => Json);
  /** Runs before the first call, outside the comparison. */
  before?: () => Promise<void>;
  /** Waits, after a call, for what the call set going to be stored. */
  settle?: () => Promise<void>;
  /** The status this tool exists to refresh: recording it anew is not destructive. */
  refresh?: Refresh;
}

forEachStoreKind("every tool's hints hold for what it did, call after call", async (store) => {
  const root = await Deno.makeTempDir({ prefix: "svc_hints_" });
  const s = await startTestServer({ store });
  let c: ToolClient | undefined;
  try {
    const rt = s.runtime;
    const f = await seedRoles(rt);
    const admin = f.users.ws_admin.principal;
    const warehouse = `${root}/warehouse.db`;
    const seed = new DatabaseSync(warehouse);
    seed.exec(
      "CREATE TABLE orders (id INTEGER, amount INTEGER); INSERT INTO orders VALUES (1, 10);",
    );
    seed.close();
    await Deno.mkdir(`${root}/lake/sales`, { recursive: true });
    await writeParquet(`${root}/lake/sales/part-0.parquet`, "SELECT 1 AS id");
    await rt.datasources.create(admin, adminScope(f), {
      name: "wh",
      dialect: "SQLITE",
      jdbc_url: `jdbc:sqlite:${warehouse}`,
    });
    await rt.datasources.create(admin, adminScope(f), {
      name: "lake",
      dialect: "LAKE",
      jdbc_url: `jdbc:lake:file://${root}/lake`,
    });
    const ctx = { actor: admin, workspaceId: f.workspace.id };
    const released = await teamPipeline(s, ctx, "api/teams");
    // A ws_admin holds every floor; an author-scoped key of theirs reaches all 41 tools.
    c = await connect(
      s,
      store === "postgres" ? "2026-07-28" : "2025-11-25",
      keyHeaders(await userKey(rt, f.users.ws_admin, f.workspace.id, ["author"])),
    );
    const client = c;

    // What earlier steps made, for the arguments of later ones.
    const made: Json = {};
    const bump = {
      id: "bump",
      type: "DML",
      source: "wh",
      sql: "UPDATE orders SET amount = amount + 1",
    };
    const body = {
      name: "team/hints",
      nodes: [
        bump,
        dql("total", {
          source: "wh",
          sql: "SELECT sum(amount) AS s FROM orders",
          depends_on: ["bump"],
        }),
      ],
      checks: [{
        id: "rows",
        name: "Orders exist",
        datasource: "wh",
        query: "SELECT count(*) FROM orders",
        expectation: { kind: "range", min: 1 },
      }],
    };
    const template = {
      id: "team/tpl",
      display_name: "Tpl",
      dialect: "SQLITE",
      body: "SELECT 1 AS one",
    };
    const slowRun = async () => {
      const p = await rt.pipelines.create(ctx, {
        name: "team/slow",
        schema_version: 1,
        nodes: SLOW,
      });
      const started = await rt.executions.execute({
        caller: { userId: f.users.ws_admin.id, isSuperAdmin: false },
        workspaceId: f.workspace.id,
        pipelineId: String(p.id),
        parameters: {},
        correlationId: crypto.randomUUID(),
        triggeredVia: "REST",
      });
      await started.release();
      made.slow = started.executionId;
    };
    const aborted = () =>
      eventually(
        async () => (await rt.executions.repo.get(made.slow))?.record.status === "ABORTED",
        {
          what: "the cancelled run to end",
          ms: 15_000,
        },
      ).then(() => {});

    const steps: Step[] = [
      { tool: "docs_list", args: {} },
      { tool: "docs_get", args: { id: "skill" } },
      { tool: "calculators_list", args: {} },
      { tool: "calculators_get", args: { name: "today" } },
      { tool: "datasources_list", args: {} },
      { tool: "datasources_get", args: { name: "wh" } },
      { tool: "datasources_get_table_stats", args: { name: "wh", table: "orders" } },
      { tool: "datasources_get_schemas", args: { name: "wh" } },
      { tool: "datasources_get_tables", args: { name: "wh" } },
      { tool: "datasources_get_columns", args: { name: "wh", table: "orders" } },
      { tool: "datasources_preview_rows", args: { name: "wh", table: "orders" } },
      { tool: "sql_probe", args: { datasource: "wh", sql: "SELECT * FROM orders" } },
      {
        tool: "datasources_test",
        args: { name: "wh" },
        refresh: { table: "store.datasources", columns: /^last_test_/ },
      },
      { tool: "templates_create", args: template },
      { tool: "templates_list", args: {} },
      { tool: "templates_get", args: { id: "team/tpl" } },
      { tool: "templates_used_by", args: { id: "team/tpl" } },
      { tool: "templates_render", args: { id: "team/tpl" } },
      {
        tool: "templates_update",
        before: async () => {
          made.tplHash = (await client.call("templates_get", { id: "team/tpl" })).body_hash;
        },
        args: () => ({ ...template, body: "SELECT 2 AS two", if_match: made.tplHash }),
      },
      {
        tool: "templates_purge_draft",
        before: async () => {
          made.tplHash = (await client.call("templates_get", { id: "team/tpl" })).body_hash;
        },
        args: () => ({ id: "team/tpl", if_match: made.tplHash }),
      },
      { tool: "pipelines_create", args: body },
      { tool: "pipelines_list", args: {} },
      {
        tool: "pipelines_get",
        before: async () => {
          made.pipeline = (await client.call("pipelines_list", { q: "hints" })).items[0].id;
        },
        args: () => ({ id: made.pipeline }),
      },
      {
        tool: "pipelines_update",
        before: async () => {
          made.hash = (await client.call("pipelines_get", { id: made.pipeline })).body_hash;
        },
        args: () => ({ id: made.pipeline, if_match: made.hash, ...body, description: "v2" }),
      },
      { tool: "pipelines_execute", args: () => ({ id: made.pipeline }) },
      { tool: "pipelines_execute_node", args: () => ({ id: made.pipeline, node: "bump" }) },
      { tool: "pipelines_run_checks", args: () => ({ id: made.pipeline, version: 1 }) },
      { tool: "executions_list", args: {} },
      {
        tool: "executions_get",
        before: async () => {
          made.run = (await client.call("executions_list", {})).items
            .find((e: Json) => e.status === "SUCCESS" && e.result_row_count === 1).execution_id;
        },
        args: () => ({ execution_id: made.run }),
      },
      { tool: "executions_get_result", args: () => ({ execution_id: made.run }) },
      {
        tool: "executions_cancel",
        before: slowRun,
        args: () => ({ execution_id: made.slow }),
        settle: aborted,
      },
      {
        tool: "semantics_record",
        args: { datasource: "wh", kind: "unit", fact: "amount in cents" },
      },
      {
        tool: "semantics_list",
        before: async () => {
          made.fact = (await client.call("semantics_list", { datasource: "wh" })).facts[0].id;
        },
        args: { datasource: "wh" },
      },
      { tool: "semantics_retire", args: () => ({ id: made.fact }) },
      { tool: "endpoints_create", args: { path_pattern: "/teams/{team}", pipeline_id: released } },
      { tool: "endpoints_list", args: {} },
      { tool: "endpoints_get", args: { path_pattern: "/teams/{team}" } },
      { tool: "endpoints_delete", args: { path_pattern: "/teams/{team}" } },
      {
        tool: "lake_tables_register",
        args: {
          datasource: "lake",
          namespace: "sales",
          name: "orders",
          format: "parquet",
          location: `file://${root}/lake/sales/*.parquet`,
        },
      },
      {
        tool: "lake_tables_import",
        args: {
          datasource: "lake",
          namespace: "crm",
          tables: [{
            name: "people",
            format: "parquet",
            location: `file://${root}/lake/sales/*.parquet`,
          }],
        },
      },
      {
        tool: "lake_tables_unregister",
        args: { datasource: "lake", namespace: "sales", name: "orders" },
      },
    ];
    deepEqual(steps.map((st) => st.tool).sort(), CATALOGUE.map((t) => t.name).sort(), "all 41");

    const seen: string[] = [];
    for (const step of steps) {
      const tool = CATALOGUE.find((t) => t.name === step.tool)!;
      const hints = tool.annotations;
      await step.before?.();
      const args = typeof step.args === "function" ? step.args() : step.args;
      const at = await snapshot(s, warehouse);
      await client.call(step.tool, args);
      await step.settle?.();
      const once = await snapshot(s, warehouse);
      const first = diff(at, once, step.refresh);
      const again = await client.client.callTool({ name: step.tool, arguments: args });
      await step.settle?.();
      const second = diff(once, await snapshot(s, warehouse), step.refresh);
      const what = `${step.tool}: first ${JSON.stringify(first)}, again ${JSON.stringify(second)}`;
      if (hints.readOnlyHint) {
        deepEqual([first, second], [{ added: [], removed: [] }, { added: [], removed: [] }], what);
        continue;
      }
      ok(first.added.length + first.removed.length > 0, `${what}: it writes, so it wrote`);
      if (!hints.destructiveHint) equal(first.removed.length, 0, `${what}: only adds`);
      else ok(first.removed.length > 0, `${what}: destructive, and seen to change or remove`);
      const changedAgain = second.added.length + second.removed.length > 0;
      if (hints.idempotentHint) equal(changedAgain, false, `${what}: idempotent`);
      else ok(again.isError || changedAgain, `${what}: not idempotent, yet the same again`);
      seen.push(step.tool);
    }
    equal(seen.length, CATALOGUE.filter((t) => !t.annotations.readOnlyHint).length);
  } finally {
    await c?.close();
    await s.close();
    await Deno.remove(root, { recursive: true });
  }
});
