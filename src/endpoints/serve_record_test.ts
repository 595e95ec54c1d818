/**
 * What a serve stores (docs/decisions.md#every-event-is-durable): one execution row, one frames
 * row and its `endpoint.served` row, in one transaction; and when that transaction fails, none of
 * them half-way. Real pipelines and keys on both stores; the store is watched (every statement
 * and the transaction it ran in), not replaced.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { sqliteSource } from "../executions/executor_fixtures.ts";
import type { Principal } from "../identity/mod.ts";
import type { Db, Queryable, SqlValue } from "../store/mod.ts";
import { audits } from "../../tests/support/refusals.ts";
import type { ServeRequest } from "./serve.ts";
import { endpointWorld, publishPeople } from "./test_fixtures.ts";

interface Statement {
  sql: string;
  params: SqlValue[];
  /** The transaction it ran in (0: none). */
  tx: number;
}

/** `db` as is, with every write it runs recorded with its transaction. */
function watched(db: Db): { db: Db; writes: Statement[] } {
  const writes: Statement[] = [];
  let transactions = 0;
  const record = (q: Queryable, tx: number): Queryable =>
    new Proxy(q, {
      get(target, key) {
        if (key === "execute") {
          return (sql: string, params: SqlValue[] = []) => {
            writes.push({ sql: sql.trim(), params, tx });
            return target.execute(sql, params);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const outer = new Proxy(db, {
    get(target, key) {
      if (key === "transaction") {
        return <T>(fn: (tx: Queryable) => Promise<T>) => {
          const n = ++transactions;
          return target.transaction((tx) => fn(record(tx, n)));
        };
      }
      if (key === "execute") return record(target, 0).execute.bind(null);
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: outer, writes };
}

function get(principal: Principal, path: string): ServeRequest {
  return { principal, path, query: [], correlationId: crypto.randomUUID() };
}

const naming = (id: string) => (s: Statement) =>
  s.params.some((p) => typeof p === "string" && p.includes(id));

const count = async (db: Db, sql: string, id: string) =>
  Number((await db.first<{ n: unknown }>(sql, [id]))?.n);

forEachStore(
  "a serve stores its record, one frames row and its endpoint.served row in one transaction",
  async (store) => {
    const w = watched(store);
    const e = await endpointWorld(w.db);
    try {
      sqliteSource(e.w, "lite");
      const { key } = await publishPeople(e);
      // A first serve opens the datasource: on a loaded machine it may outlast the hold
      // (journal.ts, HOLD_MS), and is then stored as a longer run is.
      equal((await e.server.serve(get(key, "/people/red"))).status, 200);
      const r = await e.server.serve(get(key, "/people/blue"));
      equal(r.status, 200);
      const mine = w.writes.filter(naming(r.executionId));
      const tables = mine.map((s) => s.sql.match(/^(INSERT INTO|UPDATE) (\w+)/)?.[2]);
      deepEqual(tables, ["executions", "execution_events", "audit_log"]);
      ok(mine[0].tx > 0);
      deepEqual(mine.map((s) => s.tx), [mine[0].tx, mine[0].tx, mine[0].tx]);
      const id = r.executionId;
      equal(await count(store, "SELECT COUNT(*) AS n FROM executions WHERE id = $1", id), 1);
      equal(
        await count(
          store,
          "SELECT COUNT(*) AS n FROM execution_events WHERE execution_id = $1",
          id,
        ),
        1,
      );
      const served = (await audits(store, "endpoint.served"))
        .filter((a) => a.details.execution_id === id);
      deepEqual(served.map((a) => a.details.outcome), ["ok"]);
      equal((await e.executions.repo.get(id))?.record.status, "SUCCESS");
      const frames = await e.executions.repo.events(id);
      // Every frame, in order, whole (the payloads' cut ids put back).
      deepEqual(frames.map((f) => f.id), frames.map((_, i) => i + 1));
      equal(frames[0].event, "execution_started");
      equal(frames.at(-2)?.event, "pipeline_completed");
      for (const f of frames) equal(f.data.execution_id, id);
      equal(frames[0].data.correlation_id, frames.at(-1)?.data.correlation_id);
      equal(frames.at(-1)?.event, "data_ready");
    } finally {
      await e.close();
    }
  },
);

forEachStore(
  "a serve whose transaction fails stores none of its rows half-way",
  async (store) => {
    // A real refusal inside the transaction, after the record and frames rows: the store refuses
    // endpoint.served rows while `audit_block` has a row.
    await store.execute("CREATE TABLE audit_block (on_ INTEGER)");
    if (store.dialect === "sqlite") {
      await store.execute(`CREATE TRIGGER audit_blocked BEFORE INSERT ON audit_log
        WHEN NEW.event = 'endpoint.served' AND EXISTS (SELECT 1 FROM audit_block)
        BEGIN SELECT RAISE(ABORT, 'audit blocked'); END`);
    } else {
      await store.execute(`CREATE FUNCTION audit_blocked() RETURNS trigger AS $$
        BEGIN
          IF NEW.event = 'endpoint.served' AND EXISTS (SELECT 1 FROM audit_block) THEN
            RAISE EXCEPTION 'audit blocked';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await store.execute(`CREATE TRIGGER audit_blocked BEFORE INSERT ON audit_log
        FOR EACH ROW EXECUTE FUNCTION audit_blocked()`);
    }
    const w = watched(store);
    const e = await endpointWorld(w.db);
    try {
      sqliteSource(e.w, "lite");
      const { key } = await publishPeople(e);
      await store.execute("INSERT INTO audit_block (on_) VALUES (1)");
      const failed = await e.server.serve(get(key, "/people/blue")).then(
        () => undefined,
        (error) => error,
      );
      ok(failed, "a serve whose served row cannot be stored does not answer 200");
      const [run] = await store.query<{ id: string; status: string }>(
        "SELECT id, status FROM executions",
      );
      const id = run.id;
      // The unit was tried twice (in the batch, then alone), each time in a transaction of its
      // own making that the refusal rolled back whole; the run's ending was then written without
      // the served row (settle.ts), and the serve's own row refused.
      const mine = w.writes.filter(naming(id));
      const tableOf = (s: Statement) => s.sql.match(/^(?:INSERT INTO|UPDATE) (\w+)/)?.[1];
      const byTx = Map.groupBy(mine, (s) => s.tx);
      // (A lone row retried alone needs no transaction: the serve's own, tried twice.)
      deepEqual([...byTx].map(([tx, ss]) => [tx === 0, ss.map(tableOf)]), [
        [false, ["executions", "execution_events", "audit_log"]],
        [false, ["executions", "execution_events", "audit_log"]],
        [false, ["executions", "execution_events", "executions"]],
        [false, ["audit_log"]],
        [true, ["audit_log"]],
      ]);
      equal(run.status, "SUCCESS");
      equal(
        await count(
          store,
          "SELECT COUNT(*) AS n FROM execution_events WHERE execution_id = $1",
          id,
        ),
        1,
      );
      equal((await e.executions.repo.events(id)).at(-1)?.event, "data_ready");
      equal((await audits(store, "endpoint.served")).length, 0);
      // Unblocked, the next serve stores all three at once.
      await store.execute("DELETE FROM audit_block");
      const r = await e.server.serve(get(key, "/people/blue"));
      equal(r.status, 200);
      const next = w.writes.filter(naming(r.executionId));
      equal(new Set(next.map((s) => s.tx)).size, 1);
      equal(next.length, 3);
    } finally {
      await e.close();
    }
  },
);
