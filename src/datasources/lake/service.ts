/**
 * Lake-table use cases (docs/datasources.md#lake-datasources): register, unregister, import a
 * manifest, list. The registry engineer's routes resolve the datasource (visibility, author role)
 * and hand it in; these functions check the dialect, the global-datasource rule and the grammar,
 * write in one transaction and, once committed, call `onChange` so the pool is evicted. The bucket
 * is never touched.
 */
import { AppError } from "../../errors/mod.ts";
import { nowIso } from "../../lib/time.ts";
import { type Db, isUniqueViolation, type Queryable } from "../../store/mod.ts";
import { fetchManifest, manifestFetchUrl } from "./manifest_url.ts";
import { deleteTable, findTable, insertTable, listTables } from "./repo.ts";
import type {
  LakeDatasource,
  LakeImportResult,
  LakeTableListing,
  LakeTableRef,
  LakeTableRow,
  LakeWriteOptions,
} from "./types.ts";
import { body, joinNamespace, parseLakeTable, parseNamespace, parseTableName } from "./validate.ts";

/** Most entries one import may carry. */
export const LAKE_IMPORT_MAX_TABLES = 1000;

/** 400 `lake_dialect_required` unless the datasource is LAKE. */
export function requireLake(ds: LakeDatasource): void {
  if (ds.dialect !== "LAKE") {
    throw new AppError("datasource.validation.lake_dialect_required", {
      datasource: ds.name,
      dialect: ds.dialect,
    });
  }
}

function requireWriter(ds: LakeDatasource, options: LakeWriteOptions): void {
  requireLake(ds);
  if (ds.global && !options.actor?.isSuperAdmin) {
    throw new AppError("datasource.validation.workspace_forbidden", {
      reason: `writing the lake registry of the global datasource ${ds.name} needs an admin`,
    });
  }
}

const sameDefinition = (a: LakeTableRef, b: LakeTableRef) =>
  a.format === b.format && a.location === b.location &&
  (a.partition_column ?? null) === (b.partition_column ?? null);

const ref = (r: LakeTableRef): LakeTableRef => ({
  namespace: r.namespace,
  name: r.name,
  format: r.format,
  location: r.location,
  ...(r.partition_column ? { partition_column: r.partition_column } : {}),
});

function duplicate(ds: LakeDatasource, t: LakeTableRef): AppError {
  return new AppError("datasource.lake_table_duplicate", {
    datasource: ds.name,
    namespace: joinNamespace(t.namespace),
    name: t.name,
  });
}

async function insert(
  tx: Queryable,
  ds: LakeDatasource,
  t: LakeTableRef,
  options: LakeWriteOptions,
): Promise<LakeTableRow> {
  const row = { ...ref(t), created_at: nowIso() };
  try {
    await insertTable(
      tx,
      ds,
      { ...row, namespace: joinNamespace(t.namespace) },
      options.actor?.userId ?? null,
    );
  } catch (e) {
    if (isUniqueViolation(e)) throw duplicate(ds, t);
    throw e;
  }
  return row;
}

/** `POST /datasources/{name}/tables`: 201 with the row; 409 when the triple is taken. */
export async function registerLakeTable(
  db: Db,
  ds: LakeDatasource,
  input: unknown,
  options: LakeWriteOptions = {},
): Promise<LakeTableRow> {
  requireWriter(ds, options);
  const table = parseLakeTable(ds, input);
  const row = await db.transaction(async (tx) => {
    if (await findTable(tx, ds.id, joinNamespace(table.namespace), table.name)) {
      throw duplicate(ds, table);
    }
    return await insert(tx, ds, table, options);
  });
  await options.onChange?.(ds);
  return row;
}

/** `DELETE /datasources/{name}/tables/{namespace}/{table}` (`namespace` dot-joined); 404 if absent. */
export async function unregisterLakeTable(
  db: Db,
  ds: LakeDatasource,
  namespace: string,
  name: string,
  options: LakeWriteOptions = {},
): Promise<void> {
  requireWriter(ds, options);
  const segments = parseNamespace(namespace);
  const tableName = parseTableName(name);
  const removed = await deleteTable(db, ds.id, joinNamespace(segments), tableName);
  if (removed === 0) {
    throw new AppError("datasource.lake_table_not_found", {
      datasource: ds.name,
      namespace: joinNamespace(segments),
      name: tableName,
    });
  }
  await options.onChange?.(ds);
}

/** `GET /datasources/{name}/lake-tables`. */
export async function listLakeTables(db: Queryable, ds: LakeDatasource): Promise<LakeTableListing> {
  requireLake(ds);
  const tables = await listTables(db, ds.id);
  return { datasource: ds.name, tables, count: tables.length };
}

/** The registered tables a LAKE connector is built with. */
export async function lakeTablesOf(db: Queryable, datasourceId: string): Promise<LakeTableRef[]> {
  return (await listTables(db, datasourceId)).map(ref);
}

/** Manifest entries → table definitions; entry namespace beats the shared one. */
function manifestTables(
  ds: LakeDatasource,
  doc: Record<string, unknown>,
  sharedNamespace: unknown,
): LakeTableRef[] {
  const entries = doc.tables;
  if (!Array.isArray(entries) || entries.length > LAKE_IMPORT_MAX_TABLES) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "tables",
      reason: `expected an array of at most ${LAKE_IMPORT_MAX_TABLES} entries`,
    });
  }
  const prefix = doc.publish_prefix;
  if (prefix !== undefined && prefix !== null && typeof prefix !== "string") {
    throw new AppError("datasource.validation.lake_location_invalid", {
      reason: "publish_prefix must be a string",
    });
  }
  return entries.map((raw, index) => {
    try {
      const e = body(raw);
      const namespace = e.namespace ?? sharedNamespace;
      if (namespace === undefined || namespace === null) {
        throw new AppError("datasource.validation.lake_namespace_invalid", {
          reason: "the entry has no namespace and the import names none",
        });
      }
      let location = e.location;
      if (e.path !== undefined && e.location !== undefined) {
        throw new AppError("datasource.validation.lake_location_invalid", {
          reason: "give path or location, not both",
        });
      }
      if (e.path !== undefined) {
        if (typeof e.path !== "string" || !prefix) {
          throw new AppError("datasource.validation.lake_location_invalid", {
            reason: "a relative path needs a publish_prefix",
          });
        }
        location = `${prefix.replace(/\/+$/, "")}/${e.path.replace(/^\/+/, "")}`;
      }
      return parseLakeTable(ds, { ...e, namespace, location });
    } catch (err) {
      if (err instanceof AppError) {
        throw err.withDetails({ index });
      }
      throw err;
    }
  });
}

/**
 * `POST /datasources/{name}/tables/import`: an inline manifest (`namespace`, `publish_prefix`,
 * `tables[]`) or `{manifest_url, namespace}`. All or nothing: every entry is validated first and
 * written in one transaction. An entry already registered with the same definition is reported in
 * `already_registered`; the same triple with a different definition is 409 (an import never
 * silently redefines a table).
 */
export async function importLakeTables(
  db: Db,
  ds: LakeDatasource,
  input: unknown,
  options: LakeWriteOptions & { fetch?: typeof fetch } = {},
): Promise<LakeImportResult> {
  requireWriter(ds, options);
  const b = body(input);
  let tables: LakeTableRef[];
  if (b.manifest_url !== undefined) {
    const url = manifestFetchUrl(b.manifest_url, ds);
    const doc = body(await fetchManifest(url, ds, options.fetch));
    tables = manifestTables(ds, doc, b.namespace ?? doc.namespace);
  } else {
    tables = manifestTables(ds, b, b.namespace);
  }
  const result = await db.transaction(async (tx) => {
    const registered: LakeTableRef[] = [];
    const already: LakeTableRef[] = [];
    const seen = new Map<string, LakeTableRef>();
    for (const t of tables) {
      const key = `${joinNamespace(t.namespace)}/${t.name}`;
      const earlier = seen.get(key);
      if (earlier) {
        if (!sameDefinition(earlier, t)) throw duplicate(ds, t);
        continue;
      }
      seen.set(key, t);
      const existing = await findTable(tx, ds.id, joinNamespace(t.namespace), t.name);
      if (existing) {
        if (!sameDefinition(existing, t)) throw duplicate(ds, t);
        already.push(ref(existing));
      } else {
        registered.push(ref(await insert(tx, ds, t, options)));
      }
    }
    return {
      registered,
      registered_count: registered.length,
      already_registered: already,
      already_registered_count: already.length,
    };
  });
  if (result.registered_count > 0) await options.onChange?.(ds);
  return result;
}
