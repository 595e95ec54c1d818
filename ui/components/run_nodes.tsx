import type { DagNode } from "./dag.tsx";
import { Head } from "./head.tsx";
import { duration, StatusBadge } from "./status.tsx";

/** A child run a PIPELINE node started, as its parent's view lists it. */
export interface ChildRun {
  execution_id: string;
  parent_node_id: string | null;
  pipeline_id: string;
  /** The child pipeline's title (its display name, else its name), never its bare id. */
  pipeline_title: string;
  status: string;
  duration_ms: number | null;
}

interface NodeStatRow {
  node_id: string;
  rows_out: number | null;
  bytes_out: number | null;
  duration_ms: number | null;
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * One row per node: its state (and live progress), counts and time; a PIPELINE node names the
 * pipeline it runs and links the child run nested under it. Under each row a disclosure loads,
 * on first open, the node's SQL as the run rendered it and what became of its rows
 * (`/partials/runs/{id}/nodes/{node}`).
 */
export function RunNodes(props: {
  runId: string;
  nodes: DagNode[];
  states: Record<string, string>;
  stats: Map<string, NodeStatRow>;
  /** Titles of the pipelines PIPELINE nodes run, by pipeline id. */
  pipelineTitles: Record<string, string>;
  childRuns: ChildRun[];
}) {
  const childOf = new Map(props.childRuns.map((c) => [c.parent_node_id, c]));
  return (
    <table class="node-table">
      <Head
        cols={[
          "Node",
          "State",
          { label: "Rows", num: true },
          { label: "Bytes", num: true },
          { label: "Time", num: true },
        ]}
      />
      {props.nodes.map((n) => {
        const s = props.stats.get(n.id);
        const state = props.states[n.id];
        const child = childOf.get(n.id);
        // deno-lint-ignore no-explicit-any
        const pinned = (n as any).pipeline as { id: string; version?: number } | undefined;
        return (
          <tbody key={n.id} class="node-group">
            <tr data-node-row={n.id}>
              <td>
                <span class="mono">{n.id}</span>
                {pinned && (
                  <div class="small node-child">
                    Runs{" "}
                    <a href={`/pipelines/${pinned.id}`} data-child-pipeline>
                      {props.pipelineTitles[pinned.id] ?? "a pipeline no longer stored"}
                    </a>
                    {pinned.version ? ` v${pinned.version}` : ""}
                  </div>
                )}
              </td>
              <td>
                <span data-node-state class={`state-label state-${state}`}>{state}</span>
                {/* Determinate once the events tell how many rows the node handles. */}
                <progress data-node-progress hidden aria-label={`${n.id} progress`} />
                <span class="muted small node-progress-text" data-node-progress-text />
              </td>
              <td class="num" data-node-rows>{s?.rows_out ?? "—"}</td>
              <td class="num" data-node-bytes>{bytes(s?.bytes_out)}</td>
              <td class="num" data-node-time>{duration(s?.duration_ms)}</td>
            </tr>
            {child && (
              <tr class="child-run-row" data-child-run={child.execution_id}>
                <td colspan={5}>
                  <span aria-hidden="true" class="child-mark">↳</span>
                  <a href={`/runs/${child.execution_id}`}>
                    Child run of {child.pipeline_title}
                  </a>{" "}
                  <StatusBadge status={child.status} />{" "}
                  <span class="muted small">{duration(child.duration_ms)}</span>
                </td>
              </tr>
            )}
            <tr class="node-detail-row">
              <td colspan={5}>
                <details
                  class="node-detail"
                  hx-get={`/partials/runs/${props.runId}/nodes/${encodeURIComponent(n.id)}`}
                  hx-trigger="toggle once"
                  hx-target="find [data-node-detail]"
                >
                  <summary>
                    {n.type === "PIPELINE" || n.type === "CALCULATOR" ? "Details" : "SQL and rows"}
                    <span class="sr-only">of {n.id}</span>
                  </summary>
                  <div data-node-detail aria-live="polite">
                    <p class="muted small">Loading…</p>
                  </div>
                </details>
              </td>
            </tr>
          </tbody>
        );
      })}
    </table>
  );
}
