/**
 * Where a published-endpoint serve allocates (not part of `deno task bench`): the issue-13
 * endpoint under load while the inspector's sampling heap profiler records every allocation,
 * collected or not, then KB per request by allocating function and by the nearest frame of this
 * project's `src/` (what a change here can remove). Bytes allocated do not depend on how busy the
 * machine is, unlike CPU time; the total printed is the heap's own count over the same window.
 * Then the floor (a bare `Deno.serve` running the same query) by the heap's count.
 *
 *   deno run -A bench/endpoint_alloc.ts [seconds, default 5] [clients, default 10] [top, default 25]
 */
import { Session } from "node:inspector/promises";
import v8 from "node:v8";
import { floorServer, publishedOrders } from "./endpoints.ts";
import { load } from "./load_client.ts";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children: ProfileNode[];
}
interface Profile {
  head: ProfileNode;
  samples: { size: number; nodeId: number }[];
}

const [seconds = 5, clients = 10, top = 25] = Deno.args.map(Number);
const { db, endpointUrl, headers, close } = await publishedOrders();
const session = new Session();
session.connect();
try {
  await load(endpointUrl, 2, clients, headers);
  // What the server allocates with no request (timers, housekeeping): taken off the figures.
  const idleFrom = v8.getHeapStatistics().total_allocated_bytes;
  const idleStart = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idlePerMs = (v8.getHeapStatistics().total_allocated_bytes - idleFrom) /
    (performance.now() - idleStart);
  await session.post("HeapProfiler.enable");
  const started = performance.now();
  const allocatedBefore = v8.getHeapStatistics().total_allocated_bytes;
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  const r = await load(endpointUrl, seconds, clients, headers);
  const { profile } = await session.post("HeapProfiler.stopSampling") as unknown as {
    profile: Profile;
  };
  const allocated = v8.getHeapStatistics().total_allocated_bytes - allocatedBefore;
  const idle = idlePerMs * (performance.now() - started);
  report(profile, r.requests, allocated, idle);
  // The floor over the same table in this process, by the heap's count alone (no profiler).
  const floor = floorServer(db.url);
  try {
    await load(floor.url, 2, clients);
    const from = v8.getHeapStatistics().total_allocated_bytes;
    const f = await load(floor.url, seconds, clients);
    const bytes = v8.getHeapStatistics().total_allocated_bytes - from;
    console.log(`\nfloor (bare Deno.serve): ${(bytes / 1024 / f.requests).toFixed(1)} KB/req`);
  } finally {
    await floor.close();
  }
} finally {
  session.disconnect();
  await close();
}
Deno.exit(0);

function report(profile: Profile, requests: number, allocated: number, idle: number): void {
  const parent = new Map<number, ProfileNode | undefined>();
  const byId = new Map<number, ProfileNode>();
  const walk = (node: ProfileNode, up?: ProfileNode) => {
    byId.set(node.id, node);
    parent.set(node.id, up);
    for (const c of node.children) walk(c, node);
  };
  walk(profile.head);
  const name = (f: CallFrame) =>
    `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(src|node_modules|ext)\//, "$1/")}:${
      f.lineNumber + 1
    }`;
  const self = new Map<string, number>();
  const site = new Map<string, number>();
  const file = new Map<string, number>();
  let sampled = 0;
  for (const { size, nodeId } of profile.samples) {
    sampled += size;
    let node = byId.get(nodeId);
    const leaf = node ? name(node.callFrame) : "?";
    self.set(leaf, (self.get(leaf) ?? 0) + size);
    let ours = "(no frame of src/)";
    for (; node; node = parent.get(node.id)) {
      const url = node.callFrame.url;
      if (url.includes("/src/") && !url.includes("node_modules")) {
        ours = name(node.callFrame);
        break;
      }
    }
    site.set(ours, (site.get(ours) ?? 0) + size);
    const where = ours.split(" ").at(-1)!.replace(/:\d+$/, "");
    file.set(where, (file.get(where) ?? 0) + size);
  }
  const kb = (bytes: number) => (bytes / 1024 / Math.max(1, requests)).toFixed(1).padStart(6);
  console.log(
    `${requests} requests; heap allocated ${kb(allocated)} KB/req, ${
      kb(allocated - idle)
    } KB/req past the idle server's ${kb(idle)}; sampled ${kb(sampled)} KB/req`,
  );
  const groupings = [
    ["allocating function", self],
    ["nearest src/ frame", site],
    ["file of the nearest src/ frame", file],
  ] as const;
  for (const [title, map] of groupings) {
    console.log(`\nKB/req by ${title}:`);
    for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`${kb(v)}  ${k}`);
    }
  }
}
