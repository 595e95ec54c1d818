/**
 * The lean serving path (docs/executions.md#the-lean-path) against the executor's general path, on
 * both stores: each case is served once through each (the general one forced with `leanPath:
 * false`), and what each leaves is compared after taking out what differs by nature (ids,
 * instants, durations, stack frames): the answer, the stored frames (types, order, payload fields
 * in order), the execution record and the `endpoint.served` row. Cases: success, a failing
 * statement, an unreachable datasource, a timeout (202, the run then completing) and a cancel.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { pgJdbcUrl } from "../../tests/support/datasources.ts";
import { audits } from "../../tests/support/refusals.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { forEachStore, freshPostgresDatabase } from "../../tests/support/stores.ts";
import { eventually } from "../../tests/support/wait.ts";
import { connectorConfig, openConnector } from "../datasources/mod.ts";
import { addDatasource, sqliteSource } from "../executions/executor_fixtures.ts";
import { type EventFrame, payloadJson } from "../executions/mod.ts";
import type { ExecutionService } from "../executions/mod.ts";
import type { Db } from "../store/mod.ts";
import { EndpointServer, type ServeResult } from "./serve.ts";
import {
  type EndpointWorld,
  endpointWorld,
  PEOPLE_BY_TEAM,
  peopleNodes,
  RESULT_LIMITS,
} from "./test_fixtures.ts";

type Path = "lean" | "general";

/** Values that differ between any two runs, whichever the path: kept as their type only. */
const VOLATILE = new Set([
  "execution_id",
  "root_execution_id",
  "correlation_id",
  "started_at",
  "completed_at",
  "failed_at",
  "aborted_at",
  "observed_at",
  "expires_at",
  "result_expires_at",
  "duration_ms",
  "elapsed_ms",
  "frames",
]);

/**
 * `value` with volatile fields reduced to their type and the run's own ids to a name; objects
 * become lists of entries, so a comparison also checks the order of their fields.
 */
function normalise(value: unknown, ids: Record<string, string>): unknown {
  if (typeof value === "string") {
    let out = value;
    for (const [id, name] of Object.entries(ids)) out = out.replaceAll(id, name);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, ids));
  if (value === null || typeof value !== "object") return value;
  return Object.entries(value).map(([k, v]) => {
    if (VOLATILE.has(k) && v !== null) return [k, Array.isArray(v) ? "array" : typeof v];
    // Which states a node went through is the path's business; how long each took is not.
    if (k === "timings_ms") return [k, Object.keys(v as object)];
    return [k, normalise(v, ids)];
  });
}

/** What one serve left behind, normalised. */
interface Trace {
  answer: unknown;
  frames: unknown;
  record: unknown;
  served: unknown;
}

/** The executions service, noting which path each run it starts took. */
function noting(executions: ExecutionService, paths: Path[]): Pick<ExecutionService, "execute"> {
  return {
    async execute(input) {
      const started = await executions.execute(input);
      paths.push(started.settled ? "lean" : "general");
      return started;
    },
  };
}

interface Case {
  name: string;
  path: string;
  /** Serves through `server`. */
  serve(server: EndpointServer): Promise<ServeResult>;
  /** The answer's status. */
  status: number;
  final: string;
}

forEachStore(
  "the lean and the general serving paths answer, store and audit alike",
  async (db: Db) => {
    if (skipUnless("postgres")) return;
    const pg = await freshPostgresDatabase();
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    const e: EndpointWorld = await endpointWorld(db, { timeoutMinSeconds: 1 });
    try {
      sqliteSource(e.w, "lite");
      addDatasource(
        e.w,
        "gone",
        openConnector(connectorConfig("SQLITE", "jdbc:sqlite:/nonexistent-dir/none.db")),
      );
      addDatasource(
        e.w,
        "pg",
        openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
          username: new URL(pg.url).username || "postgres",
        })),
      );
      const key = await e.key({ name: "app", scopes: ["execute"] });
      const caller = { userId: key.userId, isSuperAdmin: false };
      const publish = async (path: string, nodes: unknown[], extra = {}, timeout?: number) => {
        const id = await e.released(nodes, extra);
        await e.service.publish(e.ctx, {
          path_pattern: path,
          pipeline_id: id,
          ...(timeout ? { timeout_seconds: timeout } : {}),
        });
        return id;
      };
      // A read that waits on an advisory lock the test holds while it wants the run held.
      const lock = Math.floor(Math.random() * 1_000_000);
      /** `act` while the test holds the lock: a gated read started meanwhile waits on it. */
      const whileLocked = async <T>(act: () => Promise<T>): Promise<T> => {
        await admin`SELECT pg_advisory_lock(${lock})`;
        try {
          return await act();
        } finally {
          await admin`SELECT pg_advisory_unlock(${lock})`;
        }
      };
      const gated = [{
        id: "r",
        type: "DQL",
        source: "pg",
        sql: `SELECT 42 AS answer FROM (SELECT pg_advisory_xact_lock(${lock})) AS gate`,
      }];
      await publish("/people/{team}", peopleNodes("lite"), PEOPLE_BY_TEAM);
      await publish("/broken", [{
        id: "r",
        type: "DQL",
        source: "lite",
        sql: "SELECT * FROM no_such_table",
      }]);
      await publish("/gone", [{ id: "r", type: "DQL", source: "gone", sql: "SELECT 1" }]);
      await publish("/slow", gated, {}, 1);
      const held = await publish("/held", gated, {}, 60);
      const terminal = async (id: string) =>
        await eventually(async () => {
          const status = (await e.executions.repo.get(id))?.record.status;
          return status && status !== "RUNNING";
        }, { what: `execution ${id} to end`, ms: 15_000 });
      const get = (path: string) => ({
        principal: key,
        path,
        query: [],
        correlationId: crypto.randomUUID(),
      });
      const plain = (path: string) => (server: EndpointServer) => server.serve(get(path));

      const cases: Case[] = [
        {
          name: "success",
          path: "/people/blue",
          serve: plain("/people/blue"),
          status: 200,
          final: "SUCCESS",
        },
        {
          name: "a failing statement",
          path: "/broken",
          serve: plain("/broken"),
          status: 500,
          final: "FAILED",
        },
        {
          name: "an unreachable datasource",
          path: "/gone",
          serve: plain("/gone"),
          status: 502,
          final: "FAILED",
        },
        {
          name: "a timeout",
          path: "/slow",
          status: 202,
          final: "SUCCESS",
          serve: (server) => whileLocked(() => server.serve(get("/slow"))),
        },
        {
          name: "a cancel",
          path: "/held",
          status: 503,
          final: "ABORTED",
          serve: (server) =>
            whileLocked(async () => {
              const answer = server.serve(get("/held"));
              // Cancelled while its read waits: the same point on either path.
              const id = await eventually(async () => {
                const [row] = await db.query<{ id: string }>(
                  "SELECT id FROM executions WHERE pipeline_id = $1 AND status = 'RUNNING'",
                  [held],
                );
                if (!row) return undefined;
                const frames = await e.executions.repo.events(row.id);
                return frames.some((f) => f.data.state === "executing") ? row.id : undefined;
              }, { what: "the held read", ms: 15_000 });
              await e.executions.cancel(caller, e.w.workspaceId, id!);
              return await answer;
            }),
        },
      ];

      const paths: Path[] = [];
      const servers: Record<Path, EndpointServer> = {
        lean: new EndpointServer({
          db,
          live: e.live,
          released: e.versions,
          executions: noting(e.executions, paths),
          resultLimits: RESULT_LIMITS,
        }),
        general: new EndpointServer({
          db,
          live: e.live,
          released: e.versions,
          executions: noting(e.executions, paths),
          resultLimits: RESULT_LIMITS,
          leanPath: false,
        }),
      };

      const trace = async (c: Case, path: Path): Promise<Trace> => {
        const before = paths.length;
        const answer = await c.serve(servers[path]);
        deepEqual(paths.slice(before), [path], `${c.name}: the ${path} path ran`);
        equal(answer.status, c.status, `${c.name} on the ${path} path: ${JSON.stringify(answer)}`);
        const id = answer.executionId;
        await terminal(id);
        const stored = (await e.executions.repo.get(id))!;
        equal(stored.record.status, c.final, `${c.name} on the ${path} path`);
        const frames: EventFrame[] = await e.executions.repo.events(id);
        const served = (await audits(db, "endpoint.served"))
          .filter((r) => r.details.execution_id === id);
        equal(served.length, 1);
        if (answer.status === 200) {
          // One text for the payload: the frames row holds the answer's body verbatim but for
          // the run's ids, which the row leaves out and every reader puts back.
          const [row] = await db.query<{ data: string }>(
            `SELECT data FROM execution_events WHERE execution_id = $1 AND event_type = 'frames'
             AND data LIKE '%"data_ready"%'`,
            [id],
          );
          const body = answer.body as Record<string, unknown>;
          const cut = payloadJson(body).replace(`"execution_id":"${id}",`, "")
            .replace(`"pipeline_id":"${body.pipeline_id}",`, "")
            .replace(`,"correlation_id":"${body.correlation_id}"}`, "}");
          ok(row.data.includes(`,"data_ready",${cut},`), path);
        }
        const { timings: _, ...rest } = answer;
        const ids = { [id]: "<execution>", [stored.record.correlation_id!]: "<correlation>" };
        return {
          answer: normalise(rest, ids),
          frames: normalise(frames, ids),
          record: normalise(stored.record, ids),
          // The audit row's own id and instant differ as any two rows' do.
          served: normalise({ ...served[0], id: null, timestamp: null }, ids),
        };
      };

      for (const c of cases) {
        const lean = await trace(c, "lean");
        const general = await trace(c, "general");
        deepEqual(lean.answer, general.answer, `${c.name}: the answer`);
        deepEqual(lean.frames, general.frames, `${c.name}: the stored frames`);
        deepEqual(lean.record, general.record, `${c.name}: the record`);
        deepEqual(lean.served, general.served, `${c.name}: the endpoint.served row`);
      }
    } finally {
      await e.close();
      await admin.end();
      await pg.drop();
    }
  },
);
