/**
 * Set-up of the executions HTTP tests: a server with the scripted executor and a movable clock,
 * the seeded roles of `acme`, a pipeline row, and readers of execute streams.
 */
import type { EventFrame } from "../../src/executions/event_order.ts";
import { addPipelineRow, runRows } from "../../src/executions/test_fixtures.ts";
import { type AccessFixture, type RoleName, seedRoles, sessionHeaders } from "./access_fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./harness.ts";
import { ScriptedExecutor } from "./scripted_executor.ts";
import { readSse } from "./sse_client.ts";
import { forEachStoreKind, storeTestWith } from "./stores.ts";

export interface ExecWorld {
  s: TestServer;
  fx: AccessFixture;
  executor: ScriptedExecutor;
  pipelineId: string;
  /** Moves the services' clock forward (replay window, result expiry) without waiting. */
  clock: { shiftMs: number };
  headers(role: RoleName): Promise<Record<string, string>>;
  /** POST execute as `role`, with `Accept: text/event-stream` unless overridden. */
  execute(role: RoleName, body?: unknown, extra?: Record<string, string>): Promise<Response>;
}

export async function execWorld(options: TestServerOptions = {}): Promise<ExecWorld> {
  const executor = new ScriptedExecutor();
  const clock = { shiftMs: 0 };
  const s = await startTestServer({
    ...options,
    env: { SERVICE_SSE_HEARTBEAT_INTERVAL_SECONDS: "1", ...options.env },
    runtime: { executor, now: () => Date.now() + clock.shiftMs },
  });
  executor.db = s.runtime.db;
  executor.results = s.runtime.results;
  const fx = await seedRoles(s.runtime);
  const pipelineId = await addPipelineRow(s.runtime.db, fx.workspace.id, fx.users.author.id);
  const headers = (role: RoleName) => sessionHeaders(s.runtime, fx.users[role], "acme");
  return {
    s,
    fx,
    executor,
    pipelineId,
    clock,
    headers,
    async execute(role, body = {}, extra = {}) {
      return await s.fetch(`/api/v1/pipelines/${pipelineId}/execute`, {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          "content-type": "application/json",
          ...await headers(role),
          ...extra,
        },
        body: JSON.stringify(body),
      });
    },
  };
}

/** Registers `name` once per store kind with an `execWorld`, its server closed after `fn`. */
export function forEachExecWorld(
  name: string,
  fn: (w: ExecWorld) => Promise<void>,
  options: Omit<TestServerOptions, "store"> = {},
): void {
  forEachStoreKind(name, async (store) => {
    const w = await execWorld({ ...options, store });
    try {
      await fn(w);
    } finally {
      await w.s.close();
    }
  });
}

/** Executes as `role` and reads the first frame: the run is under way. */
export async function runningExecution(w: ExecWorld, role: RoleName = "author") {
  const res = await w.execute(role);
  const id = res.headers.get("SVC-Execution-Id")!;
  const stream = frames(res);
  await stream.next();
  return { res, id, stream };
}

/** A stream read frame by frame: `next()` for the next frame, `rest()` for all that remain. */
export function frames(res: Response) {
  const items = readSse(res.body!);
  const seen: EventFrame[] = [];
  return {
    seen,
    async next(): Promise<EventFrame> {
      for (;;) {
        const { value, done } = await items.next();
        if (done) throw new Error("stream ended");
        if ("frame" in value) {
          seen.push(value.frame);
          return value.frame;
        }
      }
    },
    async rest(): Promise<EventFrame[]> {
      for await (const item of items) if ("frame" in item) seen.push(item.frame);
      return seen;
    },
    async close(): Promise<void> {
      await items.return(undefined);
    },
  };
}

/** Registers a store test that starts from run rows and the execution repository over them. */
export const runsTest = storeTestWith(runRows);
