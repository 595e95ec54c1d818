/**
 * Lake tables: the registry of tables a LAKE datasource reads in place
 * (docs/datasources.md#lake-datasources).
 */
export { fetchManifest, manifestFetchUrl } from "./manifest_url.ts";
export {
  importLakeTables,
  LAKE_IMPORT_MAX_TABLES,
  lakeTablesOf,
  listLakeTables,
  registerLakeTable,
  requireLake,
  unregisterLakeTable,
} from "./service.ts";
export { parseLakeTable } from "./validate.ts";
export type * from "./types.ts";
