/**
 * Serving a published endpoint (docs/endpoints.md#serving), free of HTTP: the front end hands over
 * the key's principal, the path under `/api/x`, the query pairs and the two result headers, and
 * writes what comes back. In order: match (404), authorise by the binding walk or the unbound
 * default (403), re-check the latest release (503), validate every parameter at once (400), run
 * as `ENDPOINT` for the key's owner, and wait up to the endpoint's timeout (200, 202, 500, 502).
 * Every request that reached an endpoint leaves one `endpoint.served` row, written before the
 * answer, so an endpoint key can later prove it started the execution it reads.
 *
 * Decided here:
 * - The walk is over the request path's own ancestors (bindings.ts): a binding on a node below
 *   a variable of the pattern (`/p/lit/secret` under `/p/lit/{v}`) decides for that URL, and a
 *   binding on a node with variables covers every URL the node matches.
 * - The OpenAPI document lists a pattern as is when the key may call every URL it matches, the
 *   parts it may call when only some (a variable fixed to a bound literal, or a variable whose
 *   `schema.not.enum` names the values refused), and nothing when none.
 * - A user key of another workspace is 403 `endpoint.key_not_bound` (reason `other_workspace`);
 *   one without `execute` is 403 `auth.scope.insufficient`.
 * - A run that completes without a caller node answers 200 with the `pipeline_completed`
 *   payload.
 * - A run ended by an outage rather than by its pipeline answers 503 `service.unavailable` with
 *   `Retry-After: 1`, as any request refused for an outage does: one aborted by this instance's
 *   shutdown (or by the reaper), and one whose result the shared store could not take because it
 *   was unreachable. The execution record keeps what happened (ABORTED `shutdown`, FAILED
 *   `result.storage_unavailable`).
 */
import { auditRow } from "../audit/mod.ts";
import { AppError, type ErrorBody, errorBody, toAppError } from "../errors/mod.ts";
import type {
  EventFrame,
  ExecutionService,
  FailureRecord,
  ResultLimits,
} from "../executions/mod.ts";
import { resultTtlSeconds, STORE_UNREACHABLE } from "../executions/mod.ts";
import { KEY_PREFIX } from "../identity/mod.ts";
import type { Principal } from "../identity/mod.ts";
import {
  coerceParameters,
  type ParameterDeclarations,
  type ParameterDefect,
  type ParameterValue,
} from "../pipelines/mod.ts";
import { type Db, groupCommit, type Queryable } from "../store/mod.ts";
import type { BoundKey, Region } from "./bindings.ts";
import type { LiveEndpoints } from "./live.ts";
import { type DescribedEndpoint, openApiDocument } from "./openapi.ts";
import { type Pattern, splitRequestPath } from "./path.ts";
import type { ReleasedVersions } from "./released.ts";
import type { EndpointRow } from "./repo.ts";
import { ServeVerdicts, type Verdict } from "./verdict.ts";
import { utf8Length } from "../lib/utf8.ts";

export const VALUE_MAX_BYTES = 4096;

/** One entry of `endpoint.request.invalid`'s `details.errors`. */
export interface RequestDefect {
  parameter: string;
  code:
    | ParameterDefect["code"]
    | "endpoint.request.parameter_unknown"
    | "endpoint.request.parameter_repeated"
    | "endpoint.request.value_too_large";
  message: string;
}
/** Failure codes that mean a datasource could not be reached: 502; every other failure is 500. */
const CONNECTION_FAILURES = new Set<string>([
  "pipeline.execution.datasource_unreachable",
  "pipeline.node.datasource_connection_failed",
]);

export interface ServeRequest {
  principal: Principal;
  /** The path after `/api/x`, still percent-encoded, starting with `/`. */
  path: string;
  /** Query pairs in order, repeats kept. */
  query: [string, string][];
  ttlHeader?: string | null;
  pageRowsHeader?: string | null;
  correlationId: string;
}

/** Where a served request's time went before the answer is written (for `Server-Timing`). */
export interface ServeTimings {
  /** From arrival to the run's acceptance: matching, authorisation, checks, binding, limits. */
  queue_ms: number;
  /** From acceptance to `data_ready`, the failure, or the timeout. */
  execute_ms: number;
}

export type ServeResult = ServeOutcome & { timings: ServeTimings };

type ServeOutcome =
  | { status: 200; executionId: string; body: Record<string, unknown> }
  | {
    status: 202;
    executionId: string;
    body: { execution_id: string; result_url: string; status_url: string; expires_at: string };
  }
  /** `error` is the execution's failure record, or the outage that ended it (503). */
  | { status: 500 | 502 | 503; executionId: string; error: ErrorBody };

export interface EndpointServerOptions {
  db: Queryable & Partial<Pick<Db, "transaction">>;
  live: LiveEndpoints;
  released: ReleasedVersions;
  executions: Pick<ExecutionService, "execute">;
  resultLimits: ResultLimits;
  /**
   * False runs every serve on the executor's general path; by default a pipeline that is one read
   * takes the lean path (docs/executions.md#the-lean-path). The two answer alike (the
   * path-equivalence tests); this is how those tests reach the general one.
   */
  leanPath?: boolean;
  now?: () => number;
  /**
   * Told of every serve once answered: the endpoint's pattern (`unmatched` when none matched),
   * the answer's status and its time (the metrics, when on).
   */
  onServed?: (endpoint: string, status: number, seconds: number) => void;
}

export class EndpointServer {
  readonly #o: EndpointServerOptions;
  readonly #now: () => number;
  readonly #verdicts: ServeVerdicts;

  constructor(options: EndpointServerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#verdicts = new ServeVerdicts(options.db, options.released);
  }

  /** Serves one GET; refusals before the run are thrown as AppErrors. */
  async serve(req: ServeRequest): Promise<ServeResult> {
    const onServed = this.#o.onServed;
    if (!onServed) return await this.#serve(req);
    const began = performance.now();
    const seen = { endpoint: "unmatched" };
    let status = 500;
    try {
      const result = await this.#serve(req, seen);
      status = result.status;
      return result;
    } catch (e) {
      status = toAppError(e).status;
      throw e;
    } finally {
      onServed(seen.endpoint, status, (performance.now() - began) / 1000);
    }
  }

  async #serve(req: ServeRequest, seen?: { endpoint: string }): Promise<ServeResult> {
    const { principal } = req;
    const arrived = performance.now();
    if (principal.authMethod !== "API_KEY" || !principal.keyId) {
      throw new AppError("auth.api_key.missing");
    }
    if (principal.keyKind === "server") {
      throw new AppError("endpoint.key_kind_refused", { reason: "server_key_off_surface" });
    }
    const snapshot = await this.#o.live.snapshot();
    const segments = splitRequestPath(req.path);
    const match = segments && snapshot.matcher.match(segments);
    const notFound = () => new AppError("endpoint.not_found", { path: req.path.slice(0, 300) });
    if (!segments || !match) throw notFound();
    const endpoint = match.value;
    if (seen) seen.endpoint = endpoint.path_pattern;
    // What every serve re-checks (workspace, latest release, side effects), judged once per
    // snapshot: a change to any of it moves every replica to a new one.
    const verdict = await this.#verdicts.of(snapshot, endpoint.workspace_id, endpoint.pipeline_id);
    // A deactivated workspace's endpoints answer exactly like an unknown path.
    if (verdict.kind === "inactive") throw notFound();
    let executionId: string | null = null;
    let result: ServeOutcome;
    let accepted = arrived;
    try {
      const decider = snapshot.bindings.get(endpoint.workspace_id)?.decide(segments) ?? null;
      authorise(decider, endpoint, principal);
      const released = servable(endpoint, verdict);
      const parameters = bindParameters(released.body.parameters, match.params, req.query);
      const started = await this.#o.executions.execute({
        caller: { userId: principal.userId, isSuperAdmin: false },
        workspaceId: endpoint.workspace_id,
        pipelineId: endpoint.pipeline_id,
        version: released.version,
        released: { version: released.version, body: released.body },
        parameters,
        ttlHeader: req.ttlHeader,
        pageRowsHeader: req.pageRowsHeader,
        correlationId: req.correlationId,
        triggeredVia: "ENDPOINT",
        liveReader: false,
        lean: this.#o.leanPath !== false,
      });
      executionId = started.executionId;
      accepted = performance.now();
      result = await this.#await(started, endpoint.timeout_seconds, req);
    } catch (e) {
      const code = toAppError(e).code;
      await this.#served(principal, endpoint, executionId, code);
      throw e;
    }
    const timings = { queue_ms: accepted - arrived, execute_ms: performance.now() - accepted };
    await this.#served(principal, endpoint, executionId, outcomeOf(result));
    return { ...result, timings };
  }

  /**
   * The OpenAPI document of the endpoints this key may call now: bound to it (or, unbound, open
   * to it), in an active workspace, with a side-effect-free latest release.
   */
  async describe(principal: Principal, serverUrl: string): Promise<Record<string, unknown>> {
    if (principal.authMethod !== "API_KEY" || !principal.keyId) {
      throw new AppError("auth.api_key.missing");
    }
    const snapshot = await this.#o.live.snapshot();
    const callable: DescribedEndpoint[] = [];
    for (const { pattern, value: endpoint } of snapshot.matcher.entries()) {
      const tree = snapshot.bindings.get(endpoint.workspace_id);
      const regions = tree ? tree.regions(pattern.segments) : [wholeRegion(pattern)];
      // Too finely split to describe: left out rather than listed with URLs the key is refused.
      if (!regions) continue;
      const open = regions.filter((r) => {
        try {
          authorise(r.decider, endpoint, principal);
          return true;
        } catch {
          return false;
        }
      });
      if (open.length === 0) continue;
      const verdict = await this.#verdicts.of(
        snapshot,
        endpoint.workspace_id,
        endpoint.pipeline_id,
      );
      if (verdict.kind !== "servable") continue;
      const released = verdict.released;
      const described = (r: Region): DescribedEndpoint => ({
        endpoint,
        path: "/" + r.segments.map((s) => "except" in s ? `{${s.variable}}` : s.literal).join("/"),
        variables: r.segments.flatMap((s) =>
          "except" in s ? [{ name: s.variable, except: s.except }] : []
        ),
        fixed: r.segments.flatMap((s) => "except" in s || !s.variable ? [] : [s.variable]),
        parameters: released.body.parameters,
        version: released.version,
      });
      if (open.length === regions.length) callable.push(described(wholeRegion(pattern)));
      else callable.push(...open.map(described));
    }
    return openApiDocument(callable, serverUrl);
  }

  async #await(
    started: Awaited<ReturnType<ExecutionService["execute"]>>,
    timeoutSeconds: number,
    req: ServeRequest,
  ): Promise<ServeOutcome> {
    const executionId = started.executionId;
    const frames = started.frames[Symbol.asyncIterator]();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutSeconds * 1000);
    });
    let completed: Record<string, unknown> | null = null;
    let ended = false;
    // Raced once against the timeout, not once per frame.
    const decided = async (): Promise<ServeOutcome | null> => {
      for (;;) {
        const next = await frames.next();
        if (next.done) {
          ended = true;
          return null;
        }
        if (next.value.event === "pipeline_completed") completed = next.value.data;
        const outcome = answerOf(executionId, next.value);
        if (outcome) return outcome;
      }
    };
    // The lean path hands the frames over whole, once the final record is stored.
    const settled = started.settled?.then((all) => {
      ended = true;
      completed = all.findLast((f) => f.event === "pipeline_completed")?.data ?? null;
      for (const frame of all) {
        const outcome = answerOf(executionId, frame);
        if (outcome) return outcome;
      }
      return null;
    });
    try {
      const reading = settled ?? decided();
      const outcome = await Promise.race([reading, timedOut]);
      if (outcome === undefined) {
        // The run goes on (docs/decisions.md#endpoint-timeouts); this request stops following it.
        reading.catch(() => {});
        // Its execution id goes out: the record must be readable then.
        await started.recorded;
        const ttl = resultTtlSeconds(req.ttlHeader, this.#o.resultLimits);
        return {
          status: 202,
          executionId,
          body: {
            execution_id: executionId,
            result_url: `/api/v1/executions/${executionId}/result`,
            status_url: `/api/v1/executions/${executionId}`,
            expires_at: new Date(this.#now() + ttl * 1000).toISOString(),
          },
        };
      }
      clearTimeout(timer);
      // The answer waits for the stream's end, which comes once the run's record is stored:
      // after a 200 the caller may read the execution and its result at once.
      while (!ended && !(await frames.next()).done);
      return outcome ?? { status: 200, executionId, body: completed ?? {} };
    } finally {
      clearTimeout(timer);
      frames.return?.().catch(() => {});
      await started.release();
    }
  }

  async #served(
    principal: Principal,
    endpoint: EndpointRow,
    executionId: string | null,
    outcome: string,
  ): Promise<void> {
    // Through the store's group commit: one transaction for every serve of this turn, and
    // awaited, so the row that lets an endpoint key read this execution is there before the
    // answer.
    await groupCommit(this.#o.db).insert(auditRow({
      event: "endpoint.served",
      userId: principal.userId,
      provider: principal.provider,
      workspaceId: endpoint.workspace_id,
      details: {
        key_id: principal.keyId,
        endpoint: endpoint.path_pattern,
        execution_id: executionId,
        outcome,
      },
    }));
  }
}

/** The latest release, still there and still side-effect-free (503 otherwise). */
function servable(endpoint: EndpointRow, verdict: Exclude<Verdict, { kind: "inactive" }>) {
  if (verdict.kind === "servable") return verdict.released;
  throw new AppError("endpoint.unavailable", {
    path_pattern: endpoint.path_pattern,
    reason: verdict.reason,
    ...verdict.details,
  }, { "Retry-After": "30" });
}

/** The answer a frame of the run decides: its `data_ready`, or how it failed or stopped. */
function answerOf(executionId: string, { event, data }: EventFrame): ServeOutcome | undefined {
  if (event === "data_ready") return { status: 200, executionId, body: data };
  if (event === "pipeline_failed") {
    const error = data.error as FailureRecord;
    if (
      error.code === "result.storage_unavailable" && error.details.reason === STORE_UNREACHABLE
    ) {
      return unavailable(executionId, "the shared store is unreachable");
    }
    return { status: CONNECTION_FAILURES.has(error.code) ? 502 : 500, executionId, error };
  }
  if (event === "execution_aborted") {
    // `cancelled` and `client_disconnect` reach no caller that waits: a cancel needs the
    // execution id, which a serve hands out only with its answer.
    return unavailable(executionId, `the run was aborted (${data.reason})`);
  }
  return undefined;
}

/** A serve whose run an outage ended: answered as any request the outage refuses. */
function unavailable(executionId: string, reason: string): ServeOutcome {
  const error = new AppError("service.unavailable", { reason }, { "Retry-After": "1" });
  return { status: 503, executionId, error: errorBody(error, "") };
}

function outcomeOf(result: ServeOutcome): string {
  if (result.status === 200) return "ok";
  if (result.status === 202) return "accepted";
  return result.error.code;
}

/**
 * Who may call (docs/endpoints.md#who-may-call), given the keys of the deepest bound ancestor of
 * the request path (null when none is bound): a bound node decides for every key kind; with none,
 * user keys of the workspace holding `execute` pass and endpoint keys do not.
 */
export function authorise(decider: BoundKey[] | null, endpoint: EndpointRow, p: Principal): void {
  if (decider) {
    if (decider.some((b) => KEY_PREFIX + b.keyId === p.keyId)) return;
    throw new AppError("endpoint.key_not_bound", { node: decider[0].path, reason: "not_bound" });
  }
  if (p.keyKind === "endpoint") {
    throw new AppError("endpoint.key_kind_refused", { reason: "endpoint_key_unbound" });
  }
  if (p.pinnedWorkspaceId !== endpoint.workspace_id) {
    throw new AppError("endpoint.key_not_bound", { node: "/", reason: "other_workspace" });
  }
  if (!p.scopes.includes("execute")) {
    throw new AppError("auth.scope.insufficient", { required: "execute", held: p.scopes });
  }
}

/** Every URL of a pattern, with no binding on the way. */
function wholeRegion(pattern: Pattern): Region {
  return {
    segments: pattern.segments.map((s) => "literal" in s ? s : { ...s, except: [] }),
    decider: null,
  };
}

/**
 * Parameters (docs/endpoints.md#serving): path variables by name, the rest from the query string;
 * every defect in one `endpoint.request.invalid`.
 */
export function bindParameters(
  declared: ParameterDeclarations,
  pathParams: Record<string, string>,
  query: [string, string][],
): Record<string, ParameterValue> {
  const defects: RequestDefect[] = [];
  const defect = (parameter: string, code: RequestDefect["code"], message: string) =>
    defects.push({ parameter, code, message });
  const supplied: Record<string, string> = {};
  const tooLarge = (value: string) => utf8Length(value) > VALUE_MAX_BYTES;
  for (const [name, value] of Object.entries(pathParams)) {
    if (tooLarge(value)) defect(name, "endpoint.request.value_too_large", tooLargeMessage);
    else supplied[name] = value;
  }
  const seen = new Set<string>();
  const reported = new Set<string>();
  for (const [name, value] of query) {
    const repeated = seen.has(name) || Object.hasOwn(pathParams, name);
    seen.add(name);
    if (repeated) {
      delete supplied[name];
      if (!reported.has(name)) {
        reported.add(name);
        defect(name, "endpoint.request.parameter_repeated", "given more than once");
      }
      continue;
    }
    if (!Object.hasOwn(declared, name)) {
      defect(name, "endpoint.request.parameter_unknown", "not a parameter of this endpoint");
      continue;
    }
    if (tooLarge(value)) {
      defect(name, "endpoint.request.value_too_large", tooLargeMessage);
      continue;
    }
    supplied[name] = value;
  }
  const flagged = new Set(defects.map((d) => d.parameter));
  const { values, defects: typed } = coerceParameters(declared, supplied, { fromText: true });
  // A repeated or oversized parameter is reported once, not also as missing.
  defects.push(...typed.filter((d) => !flagged.has(d.parameter)));
  if (defects.length > 0) {
    throw new AppError("endpoint.request.invalid", { count: defects.length, errors: defects });
  }
  return values;
}

const tooLargeMessage = `longer than ${VALUE_MAX_BYTES} bytes`;
