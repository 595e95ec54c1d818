/**
 * The DuckDB behind one LAKE datasource: an in-memory database holding one view per registered
 * table, named `"<namespace joined by dots>"."<name>"` (segments cannot hold dots, so the schema
 * name maps back to exactly one namespace). Parquet tables read their location (globs allowed);
 * Iceberg tables read the live data files of the snapshot their metadata file names.
 *
 * Once the views exist the database is sandboxed: file access is limited to the lake root and the
 * configuration is locked, so SQL sent through the connector cannot read or attach anything else
 * on the server.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { privateTempDirectory } from "../connectors/duckdb_sandbox.ts";
import type { IcebergField } from "./iceberg.ts";
import { duckdbTypeOf, scanIceberg } from "./iceberg.ts";
import { sqlIdent, sqlString, sqlStringList } from "./sql.ts";
import type { LakeRoot, LakeTableRef } from "./types.ts";
import { joinNamespace, localPath } from "./validate.ts";

/** Said whenever an s3:// location is used on a server without httpfs. */
export const HTTPFS_UNAVAILABLE =
  "s3:// locations need DuckDB's httpfs extension, which is not installed on this server and " +
  "cannot be downloaded here; use a file:// lake or install the extension for DuckDB " +
  "ahead of time";

const INSTANCE_OPTIONS = {
  autoinstall_known_extensions: "false",
  autoload_known_extensions: "false",
};

let httpfsProbe: Promise<boolean> | undefined;

/** Whether httpfs loads from the local extension directory (never downloads); probed once. */
export function httpfsAvailable(): Promise<boolean> {
  httpfsProbe ??= (async () => {
    const instance = await DuckDBInstance.create(":memory:", INSTANCE_OPTIONS);
    const connection = await instance.connect();
    try {
      await connection.run("LOAD httpfs");
      return true;
    } catch {
      return false;
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  })();
  return httpfsProbe;
}

/** A registered table as the engine built it. */
export interface EngineTable {
  ref: LakeTableRef;
  schema: string;
  /** Iceberg's current schema, which knows nullability. */
  icebergFields?: IcebergField[];
  /** Why the view could not be built (missing files, unreadable metadata, no httpfs…). */
  broken?: string;
}

export interface LakeEngine {
  instance: DuckDBInstance;
  /** The instance's own spill directory, removed after it closes. */
  tempDirectory: string;
  tables: EngineTable[];
  version: string;
}

async function viewSql(table: LakeTableRef): Promise<{ sql: string; fields?: IcebergField[] }> {
  if (table.format === "parquet") {
    return { sql: `SELECT * FROM read_parquet(${sqlString(localPath(table.location))})` };
  }
  const scan = await scanIceberg(table.location);
  if (scan.files.length === 0) {
    // No snapshot (or no live file): a typed, empty view so columns() and SELECTs still work.
    const columns = scan.fields.map((f) =>
      `CAST(NULL AS ${duckdbTypeOf(f.type)}) AS ${sqlIdent(f.name)}`
    );
    return { sql: `SELECT ${columns.join(", ")} WHERE false`, fields: scan.fields };
  }
  return {
    sql: `SELECT * FROM read_parquet(${sqlStringList(scan.files)}, union_by_name = true)`,
    fields: scan.fields,
  };
}

/**
 * Builds the database for a lake: views first, then the sandbox. A table whose files cannot be
 * read becomes `broken` instead of failing the whole datasource.
 */
export async function openLakeEngine(
  root: LakeRoot,
  refs: LakeTableRef[],
  memoryMb: number,
): Promise<LakeEngine> {
  const tempDirectory = await privateTempDirectory();
  const instance = await DuckDBInstance.create(":memory:", {
    temp_directory: tempDirectory,
    ...INSTANCE_OPTIONS,
  });
  const connection = await instance.connect();
  const httpfs = refs.some((t) => t.location.startsWith("s3://")) || root.scheme === "s3"
    ? await httpfsAvailable()
    : false;
  let built = false;
  try {
    if (httpfs) await connection.run("LOAD httpfs");
    const tables: EngineTable[] = [];
    for (const ref of refs) {
      const schema = joinNamespace(ref.namespace);
      const table: EngineTable = { ref, schema };
      tables.push(table);
      if (ref.location.startsWith("s3://") && !httpfs) {
        table.broken = HTTPFS_UNAVAILABLE;
        continue;
      }
      try {
        const view = await viewSql(ref);
        table.icebergFields = view.fields;
        await connection.run(`CREATE SCHEMA IF NOT EXISTS ${sqlIdent(schema)}`);
        await connection.run(
          `CREATE OR REPLACE VIEW ${sqlIdent(schema)}.${sqlIdent(ref.name)} AS ${view.sql}`,
        );
      } catch (e) {
        table.broken = (e as Error).message;
      }
    }
    const allowed = root.scheme === "file"
      ? `${root.dir.replace(/\/$/, "")}/`
      : `s3://${root.bucket}/`;
    await connection.run(`SET allowed_directories = ${sqlStringList([allowed])}`);
    await connection.run(`SET memory_limit = '${Math.trunc(memoryMb)}MiB'`);
    await connection.run("SET enable_external_access = false");
    await connection.run("SET lock_configuration = true");
    const version = await connection.runAndReadAll("SELECT version()");
    built = true;
    return {
      instance,
      tempDirectory,
      tables,
      version: `DuckDB ${String(version.getRows()[0][0])}`,
    };
  } finally {
    connection.closeSync();
    if (!built) instance.closeSync();
  }
}
