/**
 * What a run's answer waits for in the store: its terminal frames and its final record go in one
 * commit (the final record is queued right behind them), so a caller waiting for the stored end
 * waits for one commit, not two, whether the run succeeds or fails.
 */
import { equal, ok } from "node:assert/strict";
import { MemoryStore } from "../shared/mod.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { forEachCrmWorld } from "../../tests/support/executor_world.ts";
import { dql } from "../../tests/support/pipeline_body.ts";
import { drainStream, pipeline, start } from "./executor_fixtures.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";

/** `db` with each transaction's statements recorded, in order, one list per transaction. */
function recording(db: Db): { db: Db; transactions: string[][] } {
  const transactions: string[][] = [];
  const wrapped = Object.create(db) as Db;
  wrapped.transaction = <T>(fn: (tx: Queryable) => Promise<T>) =>
    db.transaction((tx) => {
      const statements: string[] = [];
      transactions.push(statements);
      const seen = Object.create(tx) as Queryable;
      seen.execute = (sql, params) => {
        statements.push(sql.replace(/\s+/g, " ").trim());
        return tx.execute(sql, params);
      };
      return fn(seen);
    });
  return { db: wrapped, transactions };
}

for (
  const [outcome, sql, terminal] of [
    ["succeeds", "SELECT id, name FROM people", "pipeline_completed"],
    ["fails", "SELECT no_such_column FROM people", "pipeline_failed"],
  ] as const
) {
  forEachCrmWorld(
    `a run that ${outcome} stores its ending and final record in one commit`,
    async (w) => {
      const id = await pipeline(w, [dql("people", { source: "crm", sql })]);
      const shared = new MemoryStore();
      w.defer(() => shared.close());
      const store = recording(w.db);
      const sink = new DurableSink(new ExecutionRepo(store.db), shared, "instance-a");
      const handle = await start(w, id, { sink });
      const { frames } = await drainStream(handle, {
        expectDataReady: outcome === "succeeds",
      });
      equal(frames.at(outcome === "succeeds" ? -2 : -1)?.event, terminal);
      const ending = store.transactions.filter((t) =>
        t.some((s) => s.startsWith("UPDATE executions SET status"))
      );
      equal(ending.length, 1);
      // The terminal frame's row is in the same transaction, before the final record.
      const statements = ending[0];
      const update = statements.findIndex((s) => s.startsWith("UPDATE executions SET status"));
      ok(
        statements.slice(0, update).some((s) => s.startsWith("INSERT INTO execution_events")),
        JSON.stringify(statements),
      );
      const stored = await new ExecutionRepo(w.db).events(handle.executionId);
      equal(stored.at(-1)?.event, frames.at(-1)?.event);
    },
  );
}
