/**
 * The executor (docs/executions.md#how-a-pipeline-runs): `prepare` resolves the version, parses its
 * body and binds the parameters before anything streams, so the HTTP layer can still answer an
 * error envelope; `run` starts the execution (see `run.ts`) and hands back its handle at once.
 */
import { DEFAULT_ENGINE_LIMITS, type EngineLimits } from "../datasources/mod.ts";
import { AppError } from "../errors/mod.ts";
import { isUuid } from "../lib/ids.ts";
import {
  coerceParameters,
  DEFAULT_PARAMETER_CAPS,
  nodeSubset,
  type ParameterCaps,
  parameterError,
  type ParameterValue,
  parseBody,
  type PipelineBody,
} from "../pipelines/mod.ts";
import type { ImportRef, TemplateDialect } from "../templates/mod.ts";
import type { VersionLifecycle } from "../versions/mod.ts";
import type { ErrorDetail } from "./failure.ts";
import type { CallerOutput, Connect, TemplateVersion } from "./nodes/context.ts";
import type { Clock } from "./progress.ts";
import type { ResultStore } from "./result_store.ts";
import { Execution } from "./run.ts";
import { StagingPool } from "./staging_pool.ts";
import type { ExecutionHandle, ExecutionMeter, ExecutionRequest, ExecutionSink } from "./types.ts";

export type { CallerOutput, Connect, Datasource, TemplateVersion } from "./nodes/context.ts";

/** Which version of a pipeline: exact, the working one (draft else release), or the release. */
export type VersionChoice = number | "working" | "current";

/** Where the executor reads pipeline and template versions. */
export interface Catalog {
  pipeline(
    workspaceId: string,
    pipelineId: string,
    which: VersionChoice,
  ): Promise<{ version: number; draft: boolean; body: unknown }>;
  template(workspaceId: string, id: string, version: number): Promise<TemplateVersion>;
}

function notFound(pipelineId: string, version: number | null, reason: string): AppError {
  return new AppError("pipeline.execution.not_found", {
    pipeline_id: pipelineId,
    version,
    pipeline_version: version,
    reason,
  });
}

/** The catalog over the version lifecycles (templates are pinned by id, or by name). */
export function lifecycleCatalog(
  pipelines: VersionLifecycle,
  templates: VersionLifecycle,
): Catalog {
  return {
    async pipeline(workspaceId, pipelineId, which) {
      if (typeof which === "number") {
        try {
          const row = await pipelines.version(workspaceId, pipelineId, which);
          return { version: row.version, draft: row.status === "DRAFT", body: row.body };
        } catch (error) {
          if (error instanceof AppError && error.code === "pipeline.execution.not_found") {
            throw notFound(pipelineId, which, `no version ${which}`);
          }
          throw error;
        }
      }
      const view = await pipelines.view(workspaceId, pipelineId);
      const row = which === "working"
        ? view.working
        : view.entity.current_version === null
        ? null
        : await pipelines.version(workspaceId, pipelineId, view.entity.current_version);
      if (!row) throw notFound(pipelineId, null, `no ${which} version`);
      return { version: row.version, draft: row.status === "DRAFT", body: row.body };
    },
    async template(workspaceId, id, version) {
      let entityId = id;
      if (!isUuid(id)) {
        const found = await templates.findByName(workspaceId, id);
        if (!found) {
          throw new AppError("template.not_found", { template_id: id, reason: "unknown name" });
        }
        entityId = found.id;
      }
      const row = await templates.version(workspaceId, entityId, version);
      const body = row.body as { body?: unknown; dialect?: unknown; imports?: unknown };
      return {
        body: String(body.body ?? ""),
        dialect: String(body.dialect ?? "DUCKDB") as TemplateDialect,
        imports: (Array.isArray(body.imports) ? body.imports : []) as ImportRef[],
      };
    },
  };
}

export interface ExecutorOptions {
  catalog: Catalog;
  connect: Connect;
  results: ResultStore;
  baseUrl: string;
  /** `service.executor.error-detail`. */
  errorDetail?: ErrorDetail;
  /** `service.executor.progress-sample-interval-seconds`. */
  progressIntervalSeconds?: number;
  /** Milliseconds since the epoch; injected by cadence tests. */
  clock?: Clock;
  /** Nesting limit of child pipelines (a root is depth 0). */
  maxDepth?: number;
  /** The calendar day calculators compute from (YYYY-MM-DD). */
  today?: () => string;
  /** `service.executor.max-list-items` and `max-parameter-values`. */
  parameterCaps?: ParameterCaps;
  /** `service.executor.max-cell-bytes` and `duckdb-memory-limit-mb`. */
  limits?: EngineLimits;
  /** Where runs report counts and times (the metrics, when on). */
  meter?: ExecutionMeter;
  /** Warm staging instances; absent, every run creates its own (a pool of size 0). */
  stagingPool?: StagingPool;
}

/** Internal run options: set for a child execution started by a PIPELINE node. */
export interface RunOptions {
  depth?: number;
  /** The child's caller rows go here instead of the result store. */
  delivery?: CallerOutput;
  /**
   * Nobody follows the run live (its caller answers once it ends): a one-node read then takes
   * the lean path (lean.ts). Other runs ignore it.
   */
  lean?: boolean;
}

/** A request checked and bound, ready to run. */
export interface Prepared {
  readonly request: ExecutionRequest;
  readonly version: number;
  readonly draft: boolean;
  readonly body: PipelineBody;
  readonly parameters: Record<string, ParameterValue>;
  run(sink: ExecutionSink, options?: RunOptions): ExecutionHandle;
}

export const DEFAULT_MAX_DEPTH = 8;

export class Executor {
  readonly options:
    & Required<Omit<ExecutorOptions, "errorDetail" | "meter">>
    & Pick<ExecutorOptions, "meter">
    & { errorDetail: ErrorDetail };

  constructor(options: ExecutorOptions) {
    this.options = {
      errorDetail: "full",
      progressIntervalSeconds: 1,
      clock: Date.now,
      maxDepth: DEFAULT_MAX_DEPTH,
      today: () => new Date().toISOString().slice(0, 10),
      parameterCaps: DEFAULT_PARAMETER_CAPS,
      limits: DEFAULT_ENGINE_LIMITS,
      stagingPool: new StagingPool({ size: 0, memoryMb: 0 }),
      ...options,
    };
  }

  /**
   * Resolves and binds; every refusal is an AppError the caller answers before streaming:
   * `pipeline.execution.not_found` (with `details.pipeline_version`), body validation, and
   * parameter defects (`parameterError`, every defect in `details.errors`).
   */
  async prepare(request: ExecutionRequest, which?: VersionChoice): Promise<Prepared> {
    // A released body handed over by the caller is the one the catalog holds (it never changes).
    const given = which === undefined ? request.released : undefined;
    const resolved = given
      ? { version: given.version, draft: false, body: given.body as unknown }
      : await this.options.catalog.pipeline(
        request.workspaceId,
        request.pipelineId,
        which ?? request.version ?? "working",
      );
    const parsed = given ? given.body : parseBody(resolved.body, request.pipelineId);
    const body = request.node === undefined ? parsed : nodeSubset(parsed, request.node);
    const { values, defects } = coerceParameters(body.parameters, request.parameters ?? {}, {
      caps: this.options.parameterCaps,
    });
    if (defects.length > 0) throw parameterError(defects);
    const prepared: Prepared = {
      request,
      version: resolved.version,
      draft: resolved.draft,
      body,
      parameters: values,
      run: (sink, options = {}) => new Execution(this, prepared, sink, options).start(),
    };
    return prepared;
  }
}
