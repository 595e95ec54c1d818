import { Card } from "./card.tsx";
import { Dag, type DagNode } from "./dag.tsx";
import { chartData, ResultChart } from "./result_chart.tsx";
import { type ResultPage, ResultTable } from "./result_table.tsx";
import { Ago, duration, StatusBadge } from "./status.tsx";
import { type ChildRun, RunNodes } from "./run_nodes.tsx";
import { RunTimeline, type TimelineSpan } from "./run_timeline.tsx";

export { bytes } from "./run_nodes.tsx";

export interface RunRecord {
  execution_id: string;
  pipeline_id: string;
  pipeline_name: string;
  pipeline_version: number;
  status: string;
  started_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  parameters: Record<string, unknown>;
  triggered_by_name: string;
  triggered_via: string;
  abort_reason: string | null;
  error: { code: string; message: string; node?: { id?: string } } | null;
  failed_node_id: string | null;
  node_stats: {
    node_id: string;
    status: string;
    duration_ms: number | null;
    rows_out: number | null;
    bytes_out: number | null;
    error_code?: string;
  }[] | null;
  result_row_count: number | null;
  result_expires_at: string | null;
  parent_execution_id?: string | null;
  parent_node_id?: string | null;
}

/** What the node list and timeline draw beside the record (loaded by src/http/ui/runs.tsx). */
export interface RunNodesInfo {
  /** Node start and end instants from the stored events; null when those are gone. */
  spans: TimelineSpan[] | null;
  children: ChildRun[];
  pipelineTitles: Record<string, string>;
  /** Until when Replay can play the stored events; null while running. */
  replayableUntil: string | null;
}

const STATE_OF: Record<string, string> = { SUCCESS: "done", FAILED: "failed", ABORTED: "aborted" };

/**
 * A run as the page shows it: status, graph coloured by node state, one row per node, the
 * failure, and the result. While the run is live, `/js/run.js` keeps the same markup current
 * from the event stream (`data-*` attributes are its handles).
 */
export function RunView(
  props: {
    run: RunRecord;
    nodes: DagNode[];
    now: Date;
    result: ResultPage | null;
    canCancel: boolean;
    info: RunNodesInfo;
  },
) {
  const { run } = props;
  const stats = new Map((run.node_stats ?? []).map((s) => [s.node_id, s]));
  const states: Record<string, string> = {};
  for (const n of props.nodes) {
    const s = stats.get(n.id);
    states[n.id] = s ? STATE_OF[s.status] ?? "idle" : run.status === "RUNNING" ? "idle" : "skipped";
  }
  const live = run.status === "RUNNING";
  const until = props.info.replayableUntil;
  const replayable = !live && until !== null && Date.parse(until) > props.now.getTime();
  const doneCount = props.nodes.filter((n) => stats.has(n.id)).length;
  return (
    <div
      class="run-view"
      data-run={run.execution_id}
      data-live={live ? "true" : undefined}
    >
      <section class="card run-summary">
        <div class="run-status">
          <span data-run-status>
            <StatusBadge status={run.status} />
          </span>
          <span class="muted small">
            v{run.pipeline_version} · {run.triggered_by_name} via {run.triggered_via.toLowerCase()}
            {" · started "}
            <Ago at={run.started_at} now={props.now} />
          </span>
          <span class="spacer" />
          <span class="muted small" data-run-duration>{duration(run.duration_ms)}</span>
          {props.canCancel && live && (
            <button
              type="button"
              class="danger"
              data-cancel
              hx-delete={`/api/v1/executions/${run.execution_id}`}
              hx-swap="none"
            >
              Cancel
            </button>
          )}
          {replayable && (
            <button type="button" data-replay aria-describedby={`replay-help-${run.execution_id}`}>
              Replay
            </button>
          )}
        </div>
        {!live && (
          <p class="muted small replay-help" id={`replay-help-${run.execution_id}`}>
            {replayable
              ? "Replay plays this run's stored events again on this page, at their pace: nothing runs and nothing is written. Run again starts a new run."
              : "Replay played this run's stored events again for an hour after it ended; Run again starts a new run."}
          </p>
        )}
        {props.nodes.length > 0 && (
          <div class="run-progress" data-run-progress-box hidden={!live}>
            <progress
              data-run-progress
              max={props.nodes.length}
              value={doneCount}
              aria-label="Nodes finished"
            />
            <span class="muted small" data-run-progress-text>
              {doneCount} of {props.nodes.length} nodes finished
            </span>
          </div>
        )}
        {Object.keys(run.parameters).length > 0 && (
          <dl class="params">
            {Object.entries(run.parameters).map(([k, v]) => (
              <div key={k}>
                <dt class="mono">{k}</dt>
                <dd class="mono">{JSON.stringify(v)}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>

      <div class="banner error run-failure" data-run-failure hidden={!run.error} role="alert">
        {run.error && (
          <>
            <strong class="mono">{run.error.code}</strong> {run.error.message}
            {run.failed_node_id && (
              <>
                (node <span class="mono">{run.failed_node_id}</span>)
              </>
            )}
          </>
        )}
      </div>
      {run.status === "ABORTED" && (
        <div class="banner">Cancelled{run.abort_reason ? ` (${run.abort_reason})` : ""}.</div>
      )}

      <Card title="Graph">
        <div class="dag-wrap">
          <Dag nodes={props.nodes} states={states} label="The run's nodes, coloured by state" />
        </div>
        <RunNodes
          runId={run.execution_id}
          nodes={props.nodes}
          states={states}
          stats={stats}
          pipelineTitles={props.info.pipelineTitles}
          childRuns={props.info.children}
        />
      </Card>

      {props.nodes.length > 0 && (
        <Card class="section-gap" title="Timeline" note="when each node started and ended">
          <RunTimeline
            nodes={props.nodes}
            spans={props.info.spans ?? []}
            startedAt={run.started_at}
            completedAt={run.completed_at}
            now={props.now}
            eventsKept={props.info.spans !== null}
          />
        </Card>
      )}

      <Card
        class="section-gap"
        id="run-result"
        data-run-result
        title="Result"
        side={props.result && (
          <span class="actions">
            <Retention expiresAt={props.result.expires_at} now={props.now} />
            <a class="btn" href={`/runs/${run.execution_id}/result`}>Open</a>
            <a class="btn" href={`/runs/${run.execution_id}/result.csv`} download>
              Download CSV
            </a>
          </span>
        )}
      >
        {props.result
          ? (
            <>
              <RunChart run={run} page={props.result} />
              <ResultTable page={props.result} />
            </>
          )
          : (
            <div class="empty" data-result-placeholder>
              {live
                ? "The result appears here when the run completes."
                : run.status === "SUCCESS"
                ? "The result has expired or this pipeline returns no rows."
                : "This run produced no result."}
            </div>
          )}
      </Card>
    </div>
  );
}

function RunChart(props: { run: RunRecord; page: ResultPage }) {
  const data = chartData(props.page);
  return data && (
    <ResultChart
      data={data}
      chartKey={props.run.pipeline_id}
      id={`chart-${props.run.execution_id}`}
    />
  );
}

/**
 * How long a result stays readable, said before it goes: results are kept for a short while
 * (the result retention setting), then only the record remains.
 */
export function Retention(props: { expiresAt: string; now: Date }) {
  const left = Math.round((Date.parse(props.expiresAt) - props.now.getTime()) / 60_000);
  const when = left <= 0 ? "less than a minute" : left === 1 ? "1 minute" : `${left} minutes`;
  return (
    <span class="muted small" data-retention>
      Kept for {when} more, until{" "}
      <time datetime={props.expiresAt}>{props.expiresAt.slice(11, 16)} UTC</time>
    </span>
  );
}
