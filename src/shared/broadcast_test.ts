import { deepEqual } from "node:assert/strict";
import { Broadcast } from "./broadcast.ts";
import { MemoryStore } from "./memory.ts";
import { eventually } from "../../tests/support/wait.ts";

Deno.test("a broadcast change applies here at once and on every other follower, once", async () => {
  const shared = new MemoryStore();
  const seen = { a: [] as string[], b: [] as string[], c: [] as string[] };
  const a = new Broadcast<string>("test:changes", (m) => seen.a.push(m));
  const b = new Broadcast<string>("test:changes", (m) => seen.b.push(m));
  // Not following: only what it sends itself.
  const c = new Broadcast<string>("test:changes", (m) => seen.c.push(m));
  await a.open(shared);
  await b.open(shared);
  try {
    a.send("x");
    deepEqual(seen.a, ["x"]);
    await eventually(() => Promise.resolve(seen.b.length === 1));
    c.send("y");
    b.send("z");
    await eventually(() => Promise.resolve(seen.a.length === 2));
    deepEqual(seen, { a: ["x", "z"], b: ["x", "z"], c: ["y"] });
  } finally {
    await a.close();
    await b.close();
    await shared.close();
  }
});
