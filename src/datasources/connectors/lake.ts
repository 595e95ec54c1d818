/**
 * The LAKE connector: registered parquet and Iceberg tables read in place through DuckDB (see
 * `../lake/engine.ts` for the views and the sandbox). Schemas and tables come from the registry
 * without opening anything; columns, reads and the test open the engine on first use. Reads only:
 * a lake is never written through the service.
 */
import { type DuckDBConnection, StatementType } from "@duckdb/node-api";
import { AppError } from "../../errors/mod.ts";
import { columnSchema, warningsFor } from "../lake/duckdb_values.ts";
import {
  HTTPFS_UNAVAILABLE,
  httpfsAvailable,
  type LakeEngine,
  openLakeEngine,
} from "../lake/engine.ts";
import { sqlIdent } from "../lake/sql.ts";
import type { LakeRoot, LakeTableRef } from "../lake/types.ts";
import { joinNamespace, parseLakeRoot } from "../lake/validate.ts";
import { EXPLAIN_PREFIX } from "./catalogue.ts";
import { classifyError } from "./common.ts";
import { DuckReads, openDuckRead } from "./duckdb_read.ts";
import { asRefusal, refuseUnlockedFunctions, removeTempDirectory } from "./duckdb_sandbox.ts";
import { toDuck } from "./duckdb_types.ts";
import { translatePlaceholders } from "./placeholders.ts";
import type {
  ColumnInfo,
  Connector,
  Listing,
  QueryOptions,
  Statement,
  TableInfo,
  TestOutcome,
  WriteOutcome,
} from "./types.ts";
import { DEFAULT_ENGINE_LIMITS } from "./types.ts";

export interface LakeConnectorOptions {
  /** The datasource's name, for error details. */
  datasource: string;
  /** `jdbc:lake:file:///dir` or `jdbc:lake:s3://bucket/prefix`. */
  jdbc_url: string;
  /** The registry rows (`lakeTablesOf`). */
  tables: LakeTableRef[];
  /** `service.executor.duckdb-memory-limit-mb` (default: its default). */
  memoryMb?: number;
}

export class LakeConnector extends DuckReads implements Connector {
  readonly dialect = "LAKE" as const;
  readonly #name: string;
  readonly #root: LakeRoot;
  readonly #tables: LakeTableRef[];
  readonly #memoryMb: number;
  #engine?: Promise<LakeEngine>;
  readonly #leased = new Set<DuckDBConnection>();
  #drained?: () => void;
  #closed = false;

  constructor(options: LakeConnectorOptions) {
    super();
    this.#name = options.datasource;
    this.#root = parseLakeRoot(options.jdbc_url);
    this.#memoryMb = options.memoryMb ?? DEFAULT_ENGINE_LIMITS.duckdbMemoryMb;
    this.#tables = [...options.tables].sort((a, b) =>
      joinNamespace(a.namespace).localeCompare(joinNamespace(b.namespace)) ||
      a.name.localeCompare(b.name)
    );
  }

  #unreachable(reason: string, errorClass = "config"): AppError {
    return new AppError("pipeline.execution.datasource_unreachable", {
      datasource: this.#name,
      error_class: errorClass,
      reason,
    });
  }

  /** Opens the engine once; an s3 lake without httpfs is unreachable on every use. */
  #open(): Promise<LakeEngine> {
    if (this.#closed) {
      return Promise.reject(this.#unreachable("the connector is closed", "unreachable"));
    }
    this.#engine ??= (async () => {
      if (this.#root.scheme === "s3" && !(await httpfsAvailable())) {
        throw this.#unreachable(HTTPFS_UNAVAILABLE);
      }
      return await openLakeEngine(this.#root, this.#tables, this.#memoryMb);
    })();
    this.#engine.catch(() => (this.#engine = undefined));
    return this.#engine;
  }

  async #lease(): Promise<DuckDBConnection> {
    const engine = await this.#open();
    const connection = await engine.instance.connect();
    this.#leased.add(connection);
    return connection;
  }

  #release(connection: DuckDBConnection): void {
    if (!this.#leased.delete(connection)) return;
    connection.closeSync();
    if (this.#leased.size === 0) this.#drained?.();
  }

  /** A DuckDB failure naming a broken table is reported as that table's read failure. */
  async #explain(error: unknown, sql: string): Promise<unknown> {
    const engine = await this.#engine?.catch(() => undefined);
    const broken = engine?.tables.find((t) => t.broken && sql.includes(t.ref.name));
    if (broken) {
      return this.#unreachable(
        `${broken.schema}.${broken.ref.name} cannot be read: ${broken.broken}`,
      );
    }
    return error;
  }

  /** One SELECT on its own connection, closed when the read ends. */
  protected async read(statement: Statement, options: QueryOptions, readOnly: boolean) {
    const { signal, maxCellBytes } = options;
    // The one `:name` lexer every connector and the renderer share, read as DuckDB reads SQL.
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "duckdb");
    signal?.throwIfAborted();
    refuseUnlockedFunctions(sql);
    const connection = await this.#lease();
    try {
      return await openDuckRead(connection, async () => {
        // One statement only: DuckDB refuses to prepare more than one at once.
        const prepare = (text: string) =>
          connection.prepare(text).catch((error) => {
            throw asRefusal(error);
          });
        const explain = readOnly && options.explain === true;
        // A plan is asked of a read only: the read alone must pass first.
        const inner = explain ? await prepare(sql.slice(EXPLAIN_PREFIX.LAKE.length)) : undefined;
        const innerType = inner?.statementType;
        inner?.destroySync();
        const prepared = await prepare(sql);
        if (
          innerType !== undefined && innerType !== StatementType.SELECT ||
          prepared.statementType !== (explain ? StatementType.EXPLAIN : StatementType.SELECT)
        ) {
          throw readOnly
            ? new AppError("datasource.probe.not_read_only", {
              reason: "engine_refused",
              statement_type: StatementType[innerType ?? prepared.statementType],
            })
            : new AppError("pipeline.execution.invalid_parameter_type", {
              field: "sql",
              reason: "a LAKE datasource answers read (SELECT) statements only",
            });
        }
        if (values.length > 0) prepared.bind(toDuck(values));
        return await prepared.stream().catch((error) => {
          throw asRefusal(error);
        });
      }, {
        signal,
        maxCellBytes,
        schemaOf: columnSchema,
        finish: () => this.#release(connection),
      });
    } catch (e) {
      this.#release(connection);
      signal?.throwIfAborted();
      throw await this.#explain(e, statement.sql);
    }
  }

  write(): Promise<WriteOutcome> {
    return Promise.reject(
      new AppError("pipeline.execution.invalid_parameter_type", {
        field: "statements",
        reason: "LAKE datasources are read in place; writing through the service is not offered",
      }),
    );
  }

  async test(): Promise<TestOutcome> {
    const started = performance.now();
    const outcome = (error: string | null, errorClass: string | null, version: string | null) => ({
      connected: error === null,
      latency_ms: Math.round(performance.now() - started),
      server_version: version,
      error,
      error_class: errorClass,
    });
    try {
      if (this.#root.scheme === "file") {
        const info = await Deno.stat(this.#root.dir);
        if (!info.isDirectory) {
          return outcome(`${this.#root.dir} is not a directory`, "config", null);
        }
        for await (const _ of Deno.readDir(this.#root.dir)) break;
      }
      const engine = await this.#open();
      return outcome(null, null, engine.version);
    } catch (e) {
      const errorClass = e instanceof Deno.errors.PermissionDenied ? "auth" : "unreachable";
      const message = e instanceof AppError ? String(e.details.reason) : (e as Error).message;
      return outcome(message, errorClass, null);
    }
  }

  /** Namespaces (dotted) from the registry; a lake has no system schemas to hide. */
  schemas(options: { include: string[]; cap: number }): Promise<Listing<string>> {
    const all = [...new Set(this.#tables.map((t) => joinNamespace(t.namespace)))].sort();
    return Promise.resolve({
      items: all.slice(0, options.cap),
      truncated: all.length > options.cap,
    });
  }

  /** Registry rows as views with the format in `remarks`; an unknown schema lists nothing. */
  tables(
    options: { schema?: string; include: string[]; cap: number },
  ): Promise<Listing<TableInfo>> {
    const rows = this.#tables
      .filter((t) => !options.schema || joinNamespace(t.namespace) === options.schema)
      .map((t): TableInfo => ({
        schema: joinNamespace(t.namespace),
        name: t.name,
        type: "view",
        remarks: t.format,
      }));
    return Promise.resolve({
      items: rows.slice(0, options.cap),
      truncated: rows.length > options.cap,
    });
  }

  /**
   * The table's columns as its files declare them. A lake has no current schema, so `schema` is
   * required; a table absent from the registry has no columns (the route answers 404 from the
   * listing before asking).
   */
  async columns(table: string, schema?: string): Promise<ColumnInfo[]> {
    if (!schema) {
      throw new AppError("pipeline.execution.parameter_required", { parameter: "schema" });
    }
    const ref = this.#tables.find((t) => t.name === table && joinNamespace(t.namespace) === schema);
    if (!ref) return [];
    const engine = await this.#open();
    const built = engine.tables.find((t) => t.ref === ref)!;
    if (built.broken) throw this.#unreachable(`${schema}.${table} cannot be read: ${built.broken}`);
    const connection = await this.#lease();
    try {
      const prepared = await connection.prepare(
        `SELECT * FROM ${sqlIdent(schema)}.${sqlIdent(table)} LIMIT 0`,
      );
      const result = await prepared.run();
      const types = result.columnTypes();
      return result.columnNames().map((name, i) => {
        const column: ColumnInfo = {
          ...columnSchema(name, types[i]),
          warnings: warningsFor(types[i]),
        };
        const field = built.icebergFields?.find((f) => f.name === name);
        if (field) column.nullable = !field.required;
        return column;
      });
    } catch (e) {
      throw this.#unreachable(
        `${schema}.${table} cannot be read: ${(e as Error).message}`,
        classifyError(e),
      );
    } finally {
      this.#release(connection);
    }
  }

  currentSchema(): Promise<string | null> {
    return Promise.resolve(null);
  }

  /** Waits for leased connections until `deadline`, interrupts what is left, then closes. */
  async close(deadline?: Date): Promise<void> {
    this.#closed = true;
    if (this.#leased.size > 0) {
      const drained = new Promise<void>((resolve) => (this.#drained = resolve));
      const wait = deadline ? Math.max(0, deadline.getTime() - Date.now()) : 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        drained,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, wait))),
      ]);
      clearTimeout(timer);
    }
    for (const connection of [...this.#leased]) {
      connection.interrupt();
      this.#release(connection);
    }
    const engine = await this.#engine?.catch(() => undefined);
    this.#engine = undefined;
    engine?.instance.closeSync();
    if (engine) await removeTempDirectory(engine.tempDirectory);
  }
}
