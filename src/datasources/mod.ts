/** Datasources: the registry, sealed credentials, grants and the bootstrap file. */
// A workspace owning bound datasources cannot be deleted (`workspace.in_use`; see services.ts).
export { countBound as countWorkspaceDatasources } from "./repo.ts";
export { BootstrapFileError, type BootstrapOutcome } from "./bootstrap.ts";
export {
  DatasourceConnections,
  type DatasourceConnectionsOptions,
  LISTING_CAP,
} from "./connections.ts";
export { PoolManager } from "./connectors/mod.ts";
export { LakeTables, type LakeTablesOptions } from "./lake_tables.ts";
export { type ProbeResult, probeRows } from "./probe.ts";
export { type SemanticRecordInput, Semantics, type SemanticsOptions } from "./semantics.ts";
export { CredentialCipher, SealedSecretError } from "./secrets.ts";
export {
  type CredentialPurpose,
  DatasourceService,
  type DatasourceServiceOptions,
} from "./service.ts";
export {
  CREDENTIAL_KINDS,
  type CredentialKind,
  DATASOURCE_NAME_RE,
  type DatasourceRecord,
  type DatasourceReference,
  type DatasourceView,
  type Dialect,
  DIALECTS,
  type GrantView,
  isReadOnly,
  type LastTest,
  type OpenCredential,
  type ReferenceFinder,
  type WriteTarget,
} from "./types.ts";
export { classifyError, readOnlyRefusal, safeMessage } from "./connectors/common.ts";
export { LakeConnector } from "./connectors/lake.ts";
export {
  type ChunkStream,
  type ColumnSchema,
  type Connector,
  connectorConfig,
  DEFAULT_ENGINE_LIMITS,
  type DuckdbHost,
  duckdbOver,
  type EngineLimits,
  type JsonCell,
  openConnector,
  type Pool,
  privateTempDirectory,
  type QueryOptions,
  quoteIdent,
  removeTempDirectory,
  type RowStream,
  sandboxConfig,
  sqliteOver,
  type Statement,
  toJsonCell,
  type WireValue,
  WriteError,
  type WriteOutcome,
} from "./connectors/mod.ts";
export { resolvePoolSettings } from "./connectors/pool_settings.ts";
export { ValueTooLarge } from "./connectors/value_bounds.ts";
export type { WireType } from "./connectors/types.ts";
export { type LakeDatasource, lakeTablesOf } from "./lake/mod.ts";
export { probeLimits, runProbe } from "./probe.ts";
export { SqliteThread } from "./connectors/sqlite_thread.ts";
export { visibleDatasourceNames } from "./visible.ts";
export {
  columnView,
  datasourceSummaryView,
  datasourceView,
  factView,
  grantView,
  lakeImportView,
  lakeTablesView,
  lakeTableView,
  schemasView,
  type SemanticFact,
  semanticFactView,
  type TableStats,
  tableStatsView,
  tablesView,
  type TestReport,
  testReportView,
} from "./views.ts";
