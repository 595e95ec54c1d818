import type { DagNode } from "./dag.tsx";
import { duration } from "./status.tsx";

/** When a node started and ended (ISO instants), as the run's stored events tell it. */
export interface TimelineSpan {
  node_id: string;
  started_at: string;
  ended_at: string | null;
  state: string;
}

/** The bars' coordinate space: a bar is `x`/`width` out of this, the SVG stretches to its cell. */
export const TRACK = 1000;
/** A bar this narrow still shows (a 2 ms node in a 20 s run). */
const MIN_BAR = 3;

/** `x` and `width` of a bar from `start` to `end` ms after the run began, over `total` ms. */
export function barOf(start: number, end: number, total: number): { x: number; width: number } {
  const scale = total > 0 ? TRACK / total : 0;
  const x = Math.min(TRACK - MIN_BAR, Math.max(0, start * scale));
  return { x: Math.round(x), width: Math.round(Math.max(MIN_BAR, (end - start) * scale)) };
}

/**
 * A run's Gantt chart: one row per node, its bar from start to end on the run's time axis. The
 * table is the text alternative (start offset and duration per node); the bars are decoration
 * drawn as SVG attributes, never inline styles. While the run is live, `/js/run.js` moves the
 * bars as node events arrive (`data-span`, `data-start`, `data-end` are its handles, in ms from
 * the run's start).
 */
export function RunTimeline(props: {
  nodes: DagNode[];
  spans: TimelineSpan[];
  startedAt: string;
  completedAt: string | null;
  now: Date;
  /** False when the run's events are past their retention: no instants to draw from. */
  eventsKept: boolean;
}) {
  const origin = Date.parse(props.startedAt);
  const at = (iso: string | null) => (iso ? Date.parse(iso) - origin : null);
  const spans = new Map(props.spans.map((s) => [s.node_id, s]));
  const live = props.completedAt === null;
  const end = live ? props.now.getTime() - origin : at(props.completedAt)!;
  const total = Math.max(
    1,
    end,
    ...props.spans.map((s) => at(s.ended_at) ?? 0),
  );
  if (!props.eventsKept) {
    return (
      <p class="empty">
        This run's node events are past their retention, so when each node started is no longer
        known; the table above keeps each node's time.
      </p>
    );
  }
  return (
    <div
      class="timeline table-scroll"
      data-timeline
      data-run-start={props.startedAt}
      data-total={String(total)}
    >
      <table class="timeline-table">
        <caption class="sr-only">
          When each node started and how long it took, from the start of the run
        </caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col" class="num">Started</th>
            <th scope="col" class="num">Took</th>
            <th scope="col" class="timeline-axis">
              <span class="sr-only">Timeline from</span>
              <span>0 s</span>
              <span class="sr-only">to</span>
              <span data-timeline-total>{duration(total)}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.nodes.map((n) => {
            const s = spans.get(n.id);
            const start = s ? at(s.started_at)! : null;
            const stop = s ? at(s.ended_at) : null;
            const bar = start === null ? null : barOf(start, stop ?? end, total);
            const state = s ? (s.state === "running" && !live ? "aborted" : s.state) : "idle";
            return (
              <tr
                key={n.id}
                data-span={n.id}
                data-start={start === null ? undefined : String(start)}
                data-end={stop === null ? undefined : String(stop)}
              >
                <th scope="row" class="mono">{n.id}</th>
                <td class="num" data-span-start>{start === null ? "—" : `+${duration(start)}`}</td>
                <td class="num" data-span-took>
                  {start === null ? "not run" : stop === null ? (live ? "running" : "—") : duration(
                    stop - start,
                  )}
                </td>
                <td class="timeline-track">
                  <svg
                    class="timeline-svg"
                    viewBox={`0 0 ${TRACK} 16`}
                    preserveAspectRatio="none"
                    aria-hidden="true"
                    focusable="false"
                  >
                    <path
                      class="timeline-grid"
                      d={`M${TRACK / 4} 0V16M${TRACK / 2} 0V16M${(TRACK * 3) / 4} 0V16`}
                    />
                    <rect
                      data-span-bar
                      class={`timeline-bar state-${state}`}
                      x={bar?.x ?? 0}
                      y="3"
                      height="10"
                      width={bar?.width ?? 0}
                    />
                  </svg>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
