import { deepEqual, equal } from "node:assert/strict";
import { BoundedPool } from "./pool.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => open = r);
  return { open, opened };
}

Deno.test("BoundedPool: runs 2 at once, queues up to capacity, then refuses (caller runs)", async () => {
  const pool = new BoundedPool(2, 2);
  const gates = [gate(), gate(), gate(), gate()];
  const started: number[] = [];
  const task = (i: number) => async () => {
    started.push(i);
    await gates[i].opened;
  };
  deepEqual([0, 1, 2, 3].map((i) => pool.offer(task(i))), [true, true, true, true]);
  deepEqual(started, [0, 1]);
  deepEqual(pool.size, { running: 2, queued: 2 });
  equal(pool.offer(task(0)), false, "workers and queue full: the caller runs it");
  gates[0].open();
  gates[1].open();
  gates[2].open();
  gates[3].open();
  await pool.idle();
  deepEqual(started, [0, 1, 2, 3]);
  deepEqual(pool.size, { running: 0, queued: 0 });
  equal(pool.offer(() => Promise.resolve()), true);
  await pool.idle();
});

Deno.test("BoundedPool: a throwing task does not stop its worker; drop() empties the queue", async () => {
  const pool = new BoundedPool(1, 5);
  const g = gate();
  let ran = 0;
  pool.offer(async () => {
    await g.opened;
    throw new Error("boom");
  });
  pool.offer(() => Promise.resolve(ran++));
  pool.offer(() => Promise.resolve(ran++));
  equal(pool.drop().length, 2);
  pool.offer(() => Promise.resolve(ran++));
  g.open();
  await pool.idle();
  equal(ran, 1);
});
