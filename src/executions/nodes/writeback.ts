/**
 * Writes into a datasource: a DQL node's rows into `output.table` (modes append, replace, create),
 * in one transaction through `connector.write()`, whose outcome is the commit evidence of its
 * terminal progress sample. Rows go in as multi-row INSERTs with named placeholders, never as SQL
 * text.
 */
import { AppError } from "../../errors/mod.ts";
import {
  type ColumnSchema,
  type Dialect,
  quoteIdent,
  type Statement,
  type WireValue,
  WriteError,
  type WriteOutcome,
} from "../../datasources/mod.ts";
import type { PipelineNode } from "../../pipelines/mod.ts";
import type { NodeProgress } from "../progress.ts";
import {
  connectionFailed,
  type Datasource,
  type RunContext,
  statementFailed,
  statementSpan,
} from "./context.ts";

/** Placeholders per INSERT: below every driver's bind limit (SQLite's 32766, PostgreSQL's 65535). */
const MAX_BINDS = 30_000;

/** The write-shaped connection of a node; refused on a readonly datasource. */
export async function writableDatasource(
  ctx: RunContext,
  node: PipelineNode,
  name: string,
): Promise<Datasource> {
  let ds: Datasource;
  try {
    ds = await ctx.connect(ctx.workspaceId, name, { write: true });
  } catch (error) {
    throw connectionFailed(node, name, error);
  }
  if (ds.readonly) {
    throw new AppError("pipeline.node.readonly_datasource", { node_id: node.id, datasource: name });
  }
  return ds;
}

function columnType(dialect: Dialect, c: ColumnSchema): string {
  switch (c.type) {
    case "boolean":
      return "BOOLEAN";
    case "integer":
      return "INTEGER";
    case "bigint":
      return "BIGINT";
    case "decimal":
      return c.precision !== undefined
        ? `DECIMAL(${c.precision},${c.scale ?? 0})`
        : "DECIMAL(38,10)";
    case "double":
      return dialect === "MYSQL" ? "DOUBLE" : "DOUBLE PRECISION";
    case "date":
      return "DATE";
    case "timestamp":
      return dialect === "MYSQL" ? "DATETIME(6)" : "TIMESTAMP";
    case "timestamptz":
      return dialect === "POSTGRES" ? "TIMESTAMPTZ" : dialect === "DUCKDB" ? "TIMESTAMPTZ" : "TEXT";
    case "time":
      return "TIME";
    case "binary":
      return dialect === "POSTGRES" ? "BYTEA" : "BLOB";
    case "uuid":
      return dialect === "POSTGRES" || dialect === "DUCKDB" ? "UUID" : "VARCHAR(36)";
    default:
      return "TEXT";
  }
}

/** Multi-row INSERTs for one batch, each under the bind limit. */
function inserts(
  dialect: Dialect,
  table: string,
  schema: ColumnSchema[],
  batch: WireValue[][],
): Statement[] {
  const columns = schema.map((c) => quoteIdent(dialect, c.name)).join(", ");
  const perStatement = Math.max(1, Math.floor(MAX_BINDS / Math.max(1, schema.length)));
  const out: Statement[] = [];
  for (let from = 0; from < batch.length; from += perStatement) {
    const params: Record<string, unknown> = {};
    const tuples = batch.slice(from, from + perStatement).map((row, r) =>
      `(${
        row.map((value, c) => {
          params[`r${r}_${c}`] = value;
          return `:r${r}_${c}`;
        }).join(", ")
      })`
    );
    out.push({ sql: `INSERT INTO ${table} (${columns}) VALUES ${tuples.join(", ")}`, params });
  }
  return out;
}

/**
 * Reads every batch into INSERT statements, then runs them (after the mode's preamble) in one
 * transaction. Rows count as written once the transaction accepted them.
 */
export async function writeBack(
  ctx: RunContext,
  node: PipelineNode,
  schema: ColumnSchema[],
  rows: AsyncIterable<WireValue[][]>,
  progress: NodeProgress,
): Promise<{ outcome: WriteOutcome; rows: number }> {
  const out = node.output!;
  const ds = await writableDatasource(ctx, node, out.datasource!);
  const table = out.table!;
  const statements: Statement[] = [];
  if (out.mode === "create") {
    const columns = schema.map((c) =>
      `${quoteIdent(ds.dialect, c.name)} ${columnType(ds.dialect, c)}`
    );
    statements.push({ sql: `CREATE TABLE ${table} (${columns.join(", ")})` });
  } else if (out.mode === "replace") {
    statements.push({ sql: `DELETE FROM ${table}` });
  }
  let count = 0;
  let batches = 0;
  for await (const batch of rows) {
    statements.push(...inserts(ds.dialect, table, schema, batch));
    count += batch.length;
    batches++;
  }
  await progress.enter("writing");
  let outcome: WriteOutcome;
  try {
    outcome = await statementSpan(
      ctx,
      node,
      out.datasource!,
      ds.dialect,
      () => ds.connector.write(statements, { signal: ctx.signal }),
    );
  } catch (error) {
    // The failing statement is the target's, not the source's read: name its dialect. The
    // WriteError stays the cause, so the evidence still reaches the terminal sample.
    throw ctx.signal.aborted ? error : statementFailed(node, ds.dialect, error);
  }
  await progress.add({ rows_written: count, batches_written: batches });
  await progress.enter("finalizing");
  return { outcome, rows: count };
}

/** The evidence a failed write proved, when it was a `WriteError`. */
export function evidenceOf(error: unknown): WriteOutcome | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 16; depth++) {
    if (current instanceof WriteError) return current.outcome;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
