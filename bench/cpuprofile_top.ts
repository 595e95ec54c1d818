/**
 * Where a V8 CPU profile's time went, per request: self time by file and by function, and
 * inclusive time by function, for the samples between t0 and t1 (ms since the process started,
 * as bench/endpoint_cpu.ts prints them), divided by the requests served in that window.
 *
 *   deno run -A bench/cpuprofile_top.ts <file.cpuprofile> <t0> <t1> <requests> [rows]
 */
interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}

const [file, t0, t1, requests, rows = "60"] = Deno.args;
const profile = JSON.parse(Deno.readTextFileSync(file)) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Samples inside the window, trimmed by 200 ms at each end (timestamps are µs since start).
const lo = Number(t0) * 1000 + 200_000;
const hi = Number(t1) * 1000 - 200_000;
const self = new Map<number, number>();
let at = 0;
profile.samples.forEach((id, i) => {
  at += profile.timeDeltas[i];
  if (at >= lo && at <= hi) self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i]);
});

const name = (f: Frame) => f.url.replace(/^.*\/(src|bench|registry\.npmjs\.org)\//, "$1/");
const fn = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${name(n.callFrame)}:${n.callFrame.lineNumber}`;
const idle = [...self].filter(([id]) => nodes.get(id)!.callFrame.functionName === "(idle)")
  .reduce((sum, [, us]) => sum + us, 0);
const busy = [...self.values()].reduce((a, b) => a + b, 0) - idle;
const windowShare = (hi - lo) / ((Number(t1) - Number(t0)) * 1000);
const msPerRequest = busy / 1000 / (Number(requests) * windowShare);

const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const byFile = new Map<string, number>();
const bySelf = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, us] of self) {
  const n = nodes.get(id)!;
  add(byFile, name(n.callFrame) || n.callFrame.functionName, us);
  add(bySelf, fn(n), us);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = fn(nodes.get(cur)!);
    if (!seen.has(k)) add(inclusive, k, us), seen.add(k);
  }
}
const top = (title: string, m: Map<string, number>) => {
  console.log(`== ${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(rows))) {
    const share = us / busy;
    console.log(
      `${(share * 100).toFixed(1).padStart(5)}% ${(share * msPerRequest).toFixed(3)} ms  ${k}`,
    );
  }
};
console.log(`main thread busy ${msPerRequest.toFixed(3)} ms per request`);
top("self time by file", byFile);
top("self time by function", bySelf);
top("inclusive time by function", inclusive);
