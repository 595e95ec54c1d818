/**
 * Lake-table use cases as a caller reaches them (docs/datasources.md#lake-datasources): the
 * datasource is looked up as the caller's workspace sees it (else `datasource.not_found`), the lake
 * functions check the dialect, the global-datasource rule and the grammar, and after a committed
 * write the datasource's pool is retired here and, over the invalidation channel, on every other
 * instance. One place for the REST routes and the `lake_tables_*` tools alike.
 */
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { Db } from "../store/mod.ts";
import type { PoolManager } from "./connectors/mod.ts";
import {
  importLakeTables,
  type LakeDatasource,
  type LakeImportResult,
  type LakeTableListing,
  type LakeTableRow,
  type LakeWriteOptions,
  listLakeTables,
  registerLakeTable,
  unregisterLakeTable,
} from "./lake/mod.ts";
import type { DatasourceService } from "./service.ts";

export interface LakeTablesOptions {
  db: Db;
  datasources: DatasourceService;
  pools: PoolManager;
}

export class LakeTables {
  readonly #o: LakeTablesOptions;

  constructor(options: LakeTablesOptions) {
    this.#o = options;
  }

  async #lookup(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
  ): Promise<LakeDatasource> {
    const found = await this.#o.datasources.record(actor, scope, name);
    return { ...found, global: found.is_global };
  }

  #writer(actor: Principal): LakeWriteOptions {
    return {
      actor: { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin },
      onChange: (changed: LakeDatasource) => this.#o.pools.publishRetire(changed.name),
    };
  }

  /** Registers one table; 409 `datasource.lake_table_duplicate` when the triple is taken. */
  async register(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    input: unknown,
  ): Promise<LakeTableRow> {
    const ds = await this.#lookup(actor, scope, name);
    return await registerLakeTable(this.#o.db, ds, input, this.#writer(actor));
  }

  /** Unregisters a table by its dot-joined namespace and name; absent is 404. */
  async unregister(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    namespace: string,
    table: string,
  ): Promise<void> {
    const ds = await this.#lookup(actor, scope, name);
    await unregisterLakeTable(this.#o.db, ds, namespace, table, this.#writer(actor));
  }

  /** Imports an inline manifest or a `manifest_url`; idempotent. */
  async import(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
    input: unknown,
  ): Promise<LakeImportResult> {
    const ds = await this.#lookup(actor, scope, name);
    return await importLakeTables(this.#o.db, ds, input, this.#writer(actor));
  }

  /** The registered tables of a LAKE datasource. */
  async list(
    actor: Principal,
    scope: WorkspaceContext | null,
    name: string,
  ): Promise<LakeTableListing> {
    return await listLakeTables(this.#o.db, await this.#lookup(actor, scope, name));
  }
}
