/** The metadata store: one interface, two dialects, migrations. */
export { loadMigrations, migrate, type Migration, MigrationError } from "./migrate.ts";
export {
  type ChainOptions,
  GroupCommit,
  groupCommit,
  type RowInsert,
  rowInsertSql,
} from "./group_commit.ts";
export { Conditions, countOf, markers, readPage } from "./listing.ts";
export { openDb } from "./open.ts";
export { SqliteDb, toSqlitePlaceholders } from "./sqlite.ts";
export { ensureIncrementalVacuum } from "./vacuum.ts";
export {
  bool,
  type Db,
  type Dialect,
  isUniqueViolation,
  type Queryable,
  type Row,
  type SqlValue,
} from "./types.ts";
