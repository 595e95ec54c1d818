import { deepEqual, equal } from "node:assert/strict";
import { Deadlines } from "./deadlines.ts";

Deno.test("deadlines of one length expire in arrival order; a cancelled one never fires", async () => {
  const d = new Deadlines();
  const fired: string[] = [];
  const last = Promise.withResolvers<void>();
  const cancelA = d.after(5, () => fired.push("a"));
  d.after(5, () => fired.push("b"));
  const cancelC = d.after(5, () => fired.push("c"));
  d.after(5, () => {
    fired.push("d");
    last.resolve();
  });
  cancelA(); // the head: its timer finds the next one and waits for it
  cancelC();
  cancelC(); // twice is once
  await last.promise;
  deepEqual(fired, ["b", "d"]);
});

Deno.test("lengths are timed apart; cancelling every deadline leaves no timer", async () => {
  const armed = new Set<ReturnType<typeof setTimeout>>();
  const d = new Deadlines(undefined, {
    set(fire, ms) {
      const timer = setTimeout(() => {
        armed.delete(timer);
        fire();
      }, ms);
      armed.add(timer);
      return timer;
    },
    clear(timer) {
      armed.delete(timer);
      clearTimeout(timer);
    },
  });
  const fired: number[] = [];
  const cancelLong = d.after(60_000, () => fired.push(60_000));
  const cancelLong2 = d.after(60_000, () => fired.push(60_000));
  const short = Promise.withResolvers<void>();
  d.after(1, () => {
    fired.push(1);
    short.resolve();
  });
  equal(armed.size, 2, "one timer per length");
  await short.promise;
  deepEqual(fired, [1]);
  equal(armed.size, 1, "an expired length keeps none");
  cancelLong();
  equal(armed.size, 1, "one deadline of the length is still waiting");
  cancelLong2();
  equal(armed.size, 0);
});

Deno.test("a deadline the clock says is not yet due when its timer fires waits on", async () => {
  let now = 0;
  const d = new Deadlines(() => now);
  const done = Promise.withResolvers<number>();
  d.after(1, () => done.resolve(now));
  now = 0.5; // the timer fires early by this clock: re-armed rather than expired
  setTimeout(() => now = 5, 10);
  equal(await done.promise, 5);
});
