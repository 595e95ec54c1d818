/**
 * Connections to registered datasources: `/test` and introspection over the connectors, one pool
 * per datasource held by the PoolManager. A pool is opened on first use, which is when the
 * credential is decrypted (and audited); a save, update or delete retires it here and, through the
 * shared store's invalidation channel, on every other instance.
 */
import { AppError } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import {
  type ColumnInfo,
  type Connector,
  DEFAULT_ENGINE_LIMITS,
  type EngineLimits,
  openConnector,
  type PoolManager,
  type TableInfo,
  type TestOutcome,
  validateProperties,
} from "./connectors/mod.ts";
import { schemaRequired } from "./connectors/common.ts";
import { previewSql, type ProbeLimits, probeLimits, type ProbeResult, runProbe } from "./probe.ts";
import { tableStats } from "./table_stats.ts";
import type { TableStats, TestReport } from "./views.ts";
import { attachColumnFacts, attachTableFacts, type ServedFact } from "./facts/mod.ts";
import type { CredentialPurpose, DatasourceService } from "./service.ts";
import type { Queryable } from "../store/mod.ts";
import { type DatasourceRecord, isReadOnly, type OpenCredential } from "./types.ts";

/** Introspection listings stop here and say `truncated`. */
export const LISTING_CAP = 2000;

export interface DatasourceConnectionsOptions {
  /** Where learned facts live: introspection attaches them and runs the drift check. */
  db: Queryable;
  datasources: DatasourceService;
  pools: PoolManager;
  logger: Logger;
  /** The bounds on what author SQL may make (the defaults when absent). */
  limits?: EngineLimits;
  /**
   * Opens a LAKE datasource, whose tables live in the lake-table registry rather than behind a
   * driver; the lake module supplies it. Without it a LAKE datasource cannot be reached.
   */
  openLake?: (d: DatasourceRecord, credential: OpenCredential) => Connector | Promise<Connector>;
}

/** Test and introspection use cases; the caller's visibility is checked on every call. */
export class DatasourceConnections {
  readonly #db: Queryable;
  readonly #datasources: DatasourceService;
  readonly #pools: PoolManager;
  readonly #logger: Logger;
  readonly #limits: EngineLimits;
  readonly #openLake: DatasourceConnectionsOptions["openLake"];

  constructor(options: DatasourceConnectionsOptions) {
    this.#openLake = options.openLake;
    this.#db = options.db;
    this.#datasources = options.datasources;
    this.#pools = options.pools;
    this.#logger = options.logger;
    this.#limits = options.limits ?? DEFAULT_ENGINE_LIMITS;
    options.datasources.onChange((name) => {
      this.#pools.publishRetire(name).catch((error) =>
        this.#logger.warn("datasource pool retirement was not broadcast", {
          datasource: name,
          error,
        })
      );
    });
  }

  /** The datasource's current pool on this instance, opened (and its secret opened) when absent. */
  #connector(
    actor: { userId: string; provider: string },
    d: DatasourceRecord,
    purpose: CredentialPurpose,
  ) {
    return this.#pools.get(d.name, async (): Promise<Connector> => {
      if (d.dialect === "LAKE" && !this.#openLake) {
        throw new AppError("pipeline.execution.datasource_unreachable", {
          datasource: d.name,
          error_class: "config",
          reason: "lake datasources are read through the lake-table registry, not mounted here",
        });
      }
      const credential = await this.#datasources.openCredential(actor, d, purpose);
      if (d.dialect === "LAKE") return await this.#openLake!(d, credential);
      const { pool } = validateProperties(d);
      return openConnector({
        name: d.name,
        dialect: d.dialect,
        jdbc_url: d.jdbc_url,
        credential,
        jdbc: d.properties.jdbc,
        pool,
        readonly: isReadOnly(d),
      }, { logger: this.#logger, limits: this.#limits });
    });
  }

  /**
   * Probes the datasource; always a report, never a refusal for an unreachable one. The outcome
   * is stored as `last_test` (updated_at untouched).
   */
  async test(actor: Principal, scope: WorkspaceContext | null, name: string): Promise<TestReport> {
    const d = await this.#datasources.record(actor, scope, name);
    const tested_at = new Date().toISOString();
    let outcome: TestOutcome;
    try {
      outcome = await (await this.#connector(actor, d, "test")).test();
    } catch (error) {
      // A definition the connector cannot open at all (or a secret that will not decrypt).
      const known = error instanceof AppError;
      const errorClass = known ? error.details.error_class : undefined;
      outcome = {
        connected: false,
        latency_ms: 0,
        server_version: null,
        error: known ? error.message : "the datasource could not be opened",
        error_class: typeof errorClass === "string" ? errorClass : "config",
      };
      if (!(error instanceof AppError)) {
        this.#logger.warn("datasource test could not open a connector", {
          datasource: name,
          error,
        });
      }
    }
    await this.#datasources.recordTest(d, {
      tested_at,
      ok: outcome.connected,
      message: outcome.error,
    });
    return { ...outcome, tested_at };
  }

  /** Schemas without the system ones (include-schemas exempt), capped. */
  async schemas(actor: Principal, scope: WorkspaceContext | null, name: string) {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    const { items, truncated } = await conn.schemas({
      include: d.include_schemas,
      cap: LISTING_CAP,
    });
    return { schemas: items, truncated };
  }

  /** Tables of one schema (exact name) or of every visible schema; an unknown schema is empty. */
  async tables(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    schema: string | undefined,
  ): Promise<{ tables: (TableInfo & { facts?: ServedFact[] })[]; truncated: boolean }> {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    const { items, truncated } = await conn.tables({
      ...(schema ? { schema } : {}),
      include: d.include_schemas,
      cap: LISTING_CAP,
    });
    if (!scope) return { tables: items, truncated };
    // Only a complete listing (no schema filter, not truncated) may mark a missing table stale.
    const tables = await attachTableFacts(this.#db, viewerIn(scope, d), d.id, items, {
      complete: !schema && !truncated,
    });
    return { tables, truncated };
  }

  /**
   * The executor's way in: a datasource the workspace can use (bound to it, or a global one
   * granted to it; never by super-admin reach) and its pooled connector. `actor` is who the
   * credential is opened for, as the decryption audit names it.
   */
  async forExecution(
    actor: { userId: string; provider: string },
    workspaceId: string,
    name: string,
  ): Promise<{ connector: Connector; dialect: DatasourceRecord["dialect"]; readonly: boolean }> {
    const d = await this.#datasources.recordInWorkspace(workspaceId, name);
    return {
      connector: await this.#connector(actor, d, "execute"),
      dialect: d.dialect,
      readonly: isReadOnly(d),
    };
  }

  /**
   * Columns of one table, matched exactly as `/tables` listed it. Without a schema the
   * connection's current one applies; a datasource reporting none needs `?schema=`.
   */
  async columns(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    table: string,
    schema: string | undefined,
  ): Promise<(ColumnInfo & { facts?: ServedFact[] })[]> {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    // The connector resolves the current schema, and answers parameter_required without one.
    const columns = await conn.columns(table, schema);
    if (!scope) return columns;
    const resolved = schema ?? await conn.currentSchema();
    return (await attachColumnFacts(this.#db, viewerIn(scope, d), d.id, resolved, table, columns))
      .columns;
  }

  /**
   * `sql_probe` and release checks: one read statement through the bounded read-only path
   * (`probe.ts`), within `limits` clamped to the probe's bounds; with `explain`, the engine's
   * plan of the statement instead of its rows (docs/datasources.md#plans).
   */
  async probe(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    statement: { sql: string; params?: Record<string, unknown> },
    limits: Partial<ProbeLimits> & { explain?: boolean } = {},
  ): Promise<ProbeResult> {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    const { explain, ...caps } = limits;
    return await runProbe(conn, statement, {
      ...this.#probeLimits(caps),
      ...(explain ? { explain } : {}),
    });
  }

  /**
   * `datasources_get_table_stats`: columns, row count and size where the dialect tells them
   * cheaply (see `table_stats.ts`), every statement within the timeout (default 5 s, at most 30 s).
   */
  async tableStats(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    target: { schema?: string; table: string },
    options: { timeoutMs?: number } = {},
  ): Promise<TableStats> {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    const limits = probeLimits({ maxRows: 1, timeoutMs: options.timeoutMs ?? 5000 });
    return await tableStats(conn, target, d.include_schemas, limits);
  }

  /**
   * `datasources_preview_rows`: the first `maxRows` rows of one table. The schema must be one
   * `/schemas` lists and the table one `/columns` finds (exact names), so only a listed name is
   * ever quoted into the statement; without a schema the connection's current one applies.
   */
  async previewRows(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    target: { schema?: string; table: string },
    limits: Partial<ProbeLimits> = {},
  ): Promise<ProbeResult> {
    const d = await this.#datasources.record(actor, scope, name);
    const conn = await this.#connector(actor, d, "introspect");
    const schema = target.schema ?? (await conn.currentSchema()) ?? schemaRequired();
    const { items } = await conn.schemas({ include: d.include_schemas, cap: LISTING_CAP });
    if (!items.includes(schema)) {
      throw new AppError("datasource.table_not_found", { table: target.table, schema });
    }
    // Throws datasource.table_not_found (with a near name) unless the table exists as given.
    await conn.columns(target.table, schema);
    return await runProbe(
      conn,
      { sql: previewSql(conn.dialect, schema, target.table) },
      this.#probeLimits(limits),
    );
  }

  #probeLimits(requested: Partial<ProbeLimits>) {
    return { ...probeLimits(requested), maxCellBytes: this.#limits.maxCellBytes };
  }
}

/** Facts as the acting workspace sees them on one visible datasource. */
function viewerIn(scope: WorkspaceContext, d: DatasourceRecord) {
  return { workspaceId: scope.id, visibleDatasourceIds: [d.id] };
}
