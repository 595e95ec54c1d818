/**
 * The connectors' public surface: everything outside this folder (registry, introspection
 * routes, executor) imports from here and never from a dialect module or a driver.
 */
export * from "./types.ts";
export {
  checkCredentialKind,
  type ConnectorConfig,
  connectorConfig,
  type Credential,
  CREDENTIAL_KINDS,
  type CredentialKind,
  credentialKindsFor,
  isDialect,
  poolReport,
  type ValidatedProperties,
  validateProperties,
} from "./definition.ts";
export { ALLOWED_PROPERTIES, type JdbcTarget, parseJdbcUrl } from "./jdbc_url.ts";
export {
  POOL_KEYS,
  type PoolKey,
  type PoolReport,
  type PoolReportEntry,
  type PoolSettings,
  type PoolSource,
} from "./pool_settings.ts";
export { translatePlaceholders } from "./placeholders.ts";
export { type JsonCell, quoteIdent, toJsonCell } from "./common.ts";
export { openConnector, type OpenDeps } from "./open.ts";
export { sqliteOver } from "./sqlite.ts";
export { type DuckdbHost, duckdbOver } from "./duckdb.ts";
export { privateTempDirectory, removeTempDirectory, sandboxConfig } from "./duckdb_sandbox.ts";
export { type Lease, Pool, type PoolDriver } from "./pool.ts";
export { INVALIDATE_CHANNEL, PoolManager, type PoolManagerOptions } from "./pool_manager.ts";
