/**
 * The semantic layer's use cases (`semantics_list`, `semantics_record`, `semantics_retire`;
 * docs/datasources.md#tool-only-reads-table-statistics-and-learned-facts): learned facts as one
 * workspace sees and writes them. The front end has judged the operation's floor; the rules only
 * the rows can tell live here:
 * - visibility is the workspace's, never a super admin's reach: its own datasources and the global
 *   ones granted to it ("a datasource-scope record needs the datasource granted to the active
 *   workspace, else not-found");
 * - retiring a fact another workspace established needs the workspace-admin role there;
 * - a fact naming a table is fingerprinted from the table's columns as introspection reports them
 *   now, so the drift check can later demote it (an unknown table is `datasource.table_not_found`,
 *   an unreachable datasource 502, rather than a fact about nothing).
 * Rows carry what they are about (`datasource`, and `schema`, `table`, `column` when set), since a
 * listing across datasources would otherwise not say.
 */
import { AppError } from "../errors/mod.ts";
import { type Principal, rolesHeld, type WorkspaceContext } from "../identity/mod.ts";
import type { Queryable } from "../store/mod.ts";
import type { DatasourceConnections } from "./connections.ts";
import {
  type FactActor,
  type FactRecord,
  type FactViewer,
  recordFact,
  type RecordFactInput,
  retireFact,
  serveFacts,
  visibleFactRecords,
} from "./facts/mod.ts";
import { visibleIds } from "./repo.ts";
import type { DatasourceService } from "./service.ts";
import type { SemanticFact } from "./views.ts";

/** What `semantics_record` accepts: a datasource name and the fact's fields. */
export type SemanticRecordInput = Omit<RecordFactInput, "columns" | "recorded_via"> & {
  datasource?: unknown;
};

export interface SemanticsOptions {
  db: Queryable;
  datasources: DatasourceService;
  connections: DatasourceConnections;
}

export class Semantics {
  readonly #db: Queryable;
  readonly #datasources: DatasourceService;
  readonly #connections: DatasourceConnections;

  constructor(options: SemanticsOptions) {
    this.#db = options.db;
    this.#datasources = options.datasources;
    this.#connections = options.connections;
  }

  async #viewer(scope: WorkspaceContext): Promise<FactViewer & { visibleDatasourceIds: string[] }> {
    const ids = await visibleIds(this.#db, { workspaceId: scope.id, isSuperAdmin: false });
    return { workspaceId: scope.id, visibleDatasourceIds: ids };
  }

  async #served(viewer: FactViewer, records: FactRecord[]): Promise<SemanticFact[]> {
    const served = await serveFacts(viewer, records);
    return served.map((fact, i) => {
      const r = records[i];
      return {
        ...fact,
        datasource: r.datasource_name,
        ...(r.schema !== null ? { schema: r.schema } : {}),
        ...(r.table !== null ? { table: r.table } : {}),
        ...(r.column !== null ? { column: r.column } : {}),
      };
    });
  }

  /** Every live fact the workspace sees, oldest first; optionally on one datasource, one kind. */
  async list(
    _actor: Principal,
    scope: WorkspaceContext,
    filter: { datasource?: string; kind?: string } = {},
  ): Promise<SemanticFact[]> {
    const viewer = await this.#viewer(scope);
    const only = filter.datasource === undefined
      ? undefined
      : [(await this.#datasources.recordInWorkspace(scope.id, filter.datasource)).id];
    const records = await visibleFactRecords(this.#db, viewer, only);
    const served = await this.#served(viewer, records);
    return filter.kind === undefined ? served : served.filter((f) => f.kind === filter.kind);
  }

  /** Records a fact for the workspace; `via` is how it came (`recorded_via`, e.g. `mcp`). */
  async record(
    actor: Principal,
    scope: WorkspaceContext,
    input: SemanticRecordInput,
    via: string,
  ): Promise<SemanticFact> {
    if (typeof input.datasource !== "string" || input.datasource === "") {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: "datasource",
        reason: "is required",
      });
    }
    const viewer = await this.#viewer(scope);
    const d = await this.#datasources.recordInWorkspace(scope.id, input.datasource);
    const { datasource: _, ...fields } = input;
    const asked: RecordFactInput = { ...fields, recorded_via: via };
    const columns = typeof asked.table === "string" && asked.table !== ""
      ? await this.#tableColumns(actor, scope, d.name, asked)
      : undefined;
    const record = await recordFact(
      this.#db,
      factActor(actor, scope),
      d,
      viewer.visibleDatasourceIds,
      {
        ...asked,
        ...(columns ? { columns } : {}),
      },
    );
    const all = await visibleFactRecords(this.#db, viewer, [d.id]);
    return (await this.#served(viewer, all)).find((f) => f.id === record.id)!;
  }

  /** Retires a visible live fact; another workspace's needs the workspace-admin role. */
  async retire(actor: Principal, scope: WorkspaceContext, id: string): Promise<void> {
    const viewer = await this.#viewer(scope);
    await retireFact(this.#db, factActor(actor, scope), viewer.visibleDatasourceIds, id);
  }

  async #tableColumns(
    actor: Principal,
    scope: WorkspaceContext,
    name: string,
    input: RecordFactInput,
  ) {
    const schema = typeof input.schema === "string" && input.schema !== ""
      ? input.schema
      : undefined;
    const columns = await this.#connections.columns(
      actor,
      scope,
      name,
      String(input.table),
      schema,
    );
    return columns.map(({ name, type }) => ({ name, type }));
  }
}

function factActor(actor: Principal, scope: WorkspaceContext): FactActor {
  const held = rolesHeld(scope.flags, actor.isSuperAdmin);
  return {
    workspaceId: scope.id,
    userId: actor.userId,
    isWorkspaceAdmin: held.includes("ws_admin"),
    held,
  };
}
