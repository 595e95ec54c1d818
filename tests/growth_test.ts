/**
 * Growth under a steady endpoint load (docs/operations.md, "Growth and retention"): serves of a
 * published endpoint over HTTP, then the retention sweeps with the clock moved past the replay
 * window and past the record retention, leave the store's rows and bytes bounded. The figures per
 * serve come from `deno task growth`.
 */
import { equal, ok } from "node:assert/strict";
import { growthWorld, PAST_REPLAY_WINDOW, PAST_RETENTION } from "./support/growth.ts";
import { forEachStoreKind } from "./support/stores.ts";

const N = 150;

forEachStoreKind(
  "serves past the replay window keep one packed row each; past the retention, nothing; the store stays flat",
  async (store) => {
    const w = await growthWorld(store);
    try {
      const base = await w.size();
      await w.serve(N);
      const served = await w.size();
      equal(served.executions - base.executions, N);
      // One frames row a serve (more for one that outlived the journal's hold, on a loaded
      // machine).
      ok(served.events - base.events >= N, "a frames row per serve");

      const packed = await w.sweep(PAST_REPLAY_WINDOW, "full");
      equal(packed.packed, N);
      const past = await w.size();
      equal(past.executions - base.executions, N);
      equal(past.events - base.events, N, "one row per run");
      // SQLite: used page bytes, indexes included (~1.5 KB measured, 7 KB before packing);
      // page-granular sizes leave some slack. PostgreSQL: the live rows' bytes, since the size
      // on disk shrinks only when VACUUM may remove the dead rows (see StoreSize.rowBytes).
      const perServe = store === "sqlite"
        ? (past.tableBytes - base.tableBytes) / N
        : (past.rowBytes! - base.rowBytes!) / N;
      ok(perServe < 2048, `${perServe} bytes per serve`);
      if (store === "postgres") {
        // Less than it did: a serve's frames are one row without the run's ids already, which
        // PostgreSQL compresses (TOAST) like the packed one.
        ok((served.rowBytes! - base.rowBytes!) / N > perServe, "packing shrinks the rows");
      }

      const gone = await w.sweep(PAST_RETENTION);
      equal(gone.records, N);
      const swept = await w.size();
      equal(swept.executions, 0);
      equal(swept.events, 0);

      // Steady load: each further round of serves and sweeps ends where the one before did.
      const round = async () => {
        await w.serve(N);
        await w.sweep(PAST_RETENTION);
        const size = await w.size();
        equal(size.executions, 0);
        equal(size.events, 0);
        return size;
      };
      const second = await round();
      const third = await round();
      const audit = third.auditBytes - second.auditBytes; // an endpoint.served row per serve
      if (store === "sqlite") {
        // The freed pages went back to the file system (incremental vacuum): the file grows by
        // the serves' audit rows and little more.
        ok(
          third.fileBytes! <= second.fileBytes! + audit + 64 * 1024,
          `${third.fileBytes} vs ${second.fileBytes} + ${audit}`,
        );
        ok(third.fileBytes! < swept.fileBytes! + 2 * audit + 256 * 1024, "bounded");
      } else {
        // Every round leaves no live row behind. How much of the freed space a plain VACUUM
        // (autovacuum's work) hands back depends on other sessions' snapshots on the same server,
        // so the size on disk is reported by `deno task growth`, not asserted here.
        equal(third.rowBytes, 0);
      }
    } finally {
      await w.close();
    }
  },
);
