/**
 * When each node of a run started and ended, read from its stored events: the record keeps only
 * durations (`node_stats`), the events keep the instants (`node_started.started_at`, and
 * `completed_at` or `failed_at` on the node's end). A run's timeline is drawn from these.
 */
import type { EventFrame } from "./event_order.ts";

export interface NodeSpan {
  node_id: string;
  started_at: string;
  /** Null while the node runs, or when the run ended (aborted) before the node did. */
  ended_at: string | null;
  state: "running" | "done" | "failed";
  /** The run a PIPELINE node started, once its events name it. */
  child_execution_id?: string;
}

/** One span per node that started, in the order the nodes started. */
export function nodeSpans(frames: Iterable<EventFrame>): NodeSpan[] {
  const spans = new Map<string, NodeSpan>();
  for (const { event, data } of frames) {
    const nodeId = typeof data.node_id === "string" ? data.node_id : undefined;
    if (!nodeId) continue;
    const span = spans.get(nodeId);
    if (event === "node_started") {
      spans.set(nodeId, {
        node_id: nodeId,
        started_at: String(data.started_at),
        ended_at: null,
        state: "running",
      });
    } else if (span && (event === "node_completed" || event === "node_failed")) {
      span.ended_at = String(event === "node_completed" ? data.completed_at : data.failed_at);
      span.state = event === "node_completed" ? "done" : "failed";
    }
    if (span && typeof data.child_execution_id === "string") {
      span.child_execution_id = data.child_execution_id;
    }
  }
  return [...spans.values()];
}
