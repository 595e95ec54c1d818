import { equal, throws } from "node:assert/strict";
import { checkEventOrder, type EventFrame, EventOrderViolation } from "./event_order.ts";

const X = { execution_id: "e1", correlation_id: "c1" };
let nextId = 0;
const f = (event: string, data: Record<string, unknown> = {}): EventFrame => ({
  id: ++nextId,
  event,
  data: { ...X, ...data },
});
const progress = (node: string, sequence: number, state: string, attempt = 1) =>
  f("node_progress", { node_id: node, attempt, sequence, state });

/** A valid run: two parallel nodes interleaved, then the caller result. */
function happy(): EventFrame[] {
  return [
    f("execution_started"),
    f("node_started", { node_id: "a", attempt: 1 }),
    f("node_started", { node_id: "b", attempt: 1 }),
    progress("a", 1, "connecting"),
    progress("b", 1, "executing"),
    progress("a", 2, "fetching"),
    progress("a", 3, "completed"),
    f("node_completed", { node_id: "a" }),
    progress("b", 2, "completed"),
    f("node_completed", { node_id: "b" }),
    f("pipeline_completed"),
    f("data_ready"),
  ];
}

function refuses(frames: EventFrame[], rule: RegExp, options = {}) {
  throws(() => checkEventOrder(frames, options), (e: Error) => {
    equal(e instanceof EventOrderViolation, true);
    equal(rule.test(e.message), true, e.message);
    return true;
  });
}

Deno.test("checkEventOrder() accepts interleaved parallel nodes and each terminal sequence", () => {
  equal(checkEventOrder(happy(), { expectDataReady: true }).get("node_completed")!.length, 2);
  checkEventOrder([f("execution_started"), f("pipeline_completed")], { expectDataReady: false });
  checkEventOrder([
    f("execution_started"),
    f("node_started", { node_id: "a", attempt: 1 }),
    progress("a", 1, "failed"),
    f("node_failed", { node_id: "a" }),
    f("pipeline_failed"),
  ]);
  checkEventOrder([
    f("execution_started"),
    f("node_started", { node_id: "a", attempt: 1 }),
    progress("a", 1, "aborted"),
    f("execution_aborted"),
  ]);
  // A calculator node emits no progress at all.
  checkEventOrder([
    f("execution_started"),
    f("node_started", { node_id: "calc", attempt: 1 }),
    f("node_completed", { node_id: "calc" }),
    f("pipeline_completed"),
  ]);
});

Deno.test("checkEventOrder() refuses every violation of spec 2 §6", () => {
  const h = happy();
  refuses(h.slice(1), /execution_started must come first/);
  refuses([h[0], f("execution_started"), ...h.slice(1)], /second execution_started/);
  refuses([...h.slice(0, 3), { ...h[3], id: 1 }, ...h.slice(4)], /id must increase/);
  refuses([h[0], { ...h[1], data: { node_id: "a", attempt: 1 } }], /correlation_id/);
  refuses([h[0], progress("a", 1, "executing")], /before node_started/);
  refuses([h[0], h[1], progress("a", 2, "executing"), progress("a", 2, "fetching")], /sequence/);
  refuses([h[0], h[1], progress("a", 1, "thinking")], /unknown state/);
  refuses(
    [h[0], h[1], progress("a", 1, "completed"), progress("a", 2, "completed")],
    /after its terminal sample/,
  );
  refuses(
    [h[0], h[1], progress("a", 1, "fetching"), f("node_completed", { node_id: "a" })],
    /must follow/,
  );
  refuses(
    [h[0], h[1], f("node_completed", { node_id: "a" }), progress("a", 1, "executing")],
    /already ended/,
  );
  refuses([h[0], h[1], { ...h[1], id: 99 }], /started twice/);
  refuses(
    [...h.slice(0, 10), f("pipeline_completed"), f("node_started", { node_id: "c" })],
    /nothing may follow/,
  );
  refuses([...h.slice(0, 10), f("pipeline_failed"), f("data_ready")], /data_ready only once/);
  refuses([...h, f("data_ready")], /data_ready only once/);
  refuses(h.slice(0, 11), /without data_ready/, { expectDataReady: true });
  refuses(h, /without a caller node/, { expectDataReady: false });
  refuses(h.slice(0, 10), /without a terminal event/);
  refuses([h[0], f("node_cheered", { node_id: "a" })], /unknown event type/);
});

Deno.test("checkEventOrder() tracks attempts separately", () => {
  checkEventOrder([
    f("execution_started"),
    f("node_started", { node_id: "a", attempt: 1 }),
    progress("a", 5, "failed", 1),
    f("node_started", { node_id: "a", attempt: 2 }),
    progress("a", 1, "completed", 2),
    f("node_completed", { node_id: "a" }),
    f("pipeline_completed"),
  ]);
});
