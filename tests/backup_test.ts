/**
 * Backups as an operator takes them, on real processes: a seeded instance serving runs, a backup
 * taken while runs write (`main.ts backup` on the embedded store, `pg_dump` on PostgreSQL, as
 * docs/operations.md says), a restore into an empty place, and a second instance started there.
 * Every execution the API acknowledged before the backup began must be readable there, a
 * session issued before still works (the JWT secret travelled), and a datasource credential
 * still decrypts (its test connects).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { writeBackup } from "../src/backup.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { createUser, sessionHeaders } from "./support/access_fixtures.ts";
import { pgJdbcUrl } from "./support/datasources.ts";
import { call, type Json, testSecrets } from "./support/harness.ts";
import { run, ServerProcess } from "./support/server_process.ts";
import { POSTGRES_ADMIN_URL } from "./support/services.ts";
import { forEachStoreKind, freshPostgresDatabase, type StoreKind } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

/** A session of a demo author, issued by an in-process instance over the same store and secrets. */
async function seedOperator(env: Record<string, string>): Promise<Record<string, string>> {
  const rt = await createRuntime(resolveConfig(readSources(env), env), {
    env,
    logger: createLogger("error"),
  });
  try {
    const admin = await createUser(rt, "operator@backup.test", { isAdmin: true });
    await rt.workspaces.addMember(admin.principal, "demo", {
      email: admin.email,
      author: true,
      promoter: false,
      admin: true,
    });
    return await sessionHeaders(rt, admin, "demo");
  } finally {
    await rt.close();
  }
}

const client = (server: ServerProcess) => ({
  fetch: (p: string, i?: RequestInit) => fetch(server.url + p, i),
});

/** Executes one pipeline over and over on a few connections until stopped. */
class RunLoop {
  readonly acked: { id: string; sent: number; at: number }[] = [];
  readonly ended = new Map<string, number>();
  readonly errors: string[] = [];
  #stopping = false;
  readonly #workers: Promise<void>[];

  constructor(url: string, headers: Record<string, string>, pipelineId: string, workers = 2) {
    this.#workers = Array.from({ length: workers }, async () => {
      while (!this.#stopping && this.errors.length === 0) {
        const sent = performance.now();
        const res = await fetch(`${url}/api/v1/pipelines/${pipelineId}/execute`, {
          method: "POST",
          headers: { ...headers, accept: "text/event-stream", "content-type": "application/json" },
          body: JSON.stringify({ parameters: {} }),
        });
        if (res.status !== 200) {
          this.errors.push(`${res.status} ${await res.text()}`);
          break;
        }
        const id = res.headers.get("SVC-Execution-Id")!;
        this.acked.push({ id, sent, at: performance.now() });
        await res.text();
        this.ended.set(id, performance.now());
      }
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#workers);
  }
}

interface Method {
  /** Takes the backup of the instance configured by `env` into `file`. */
  backup(env: Record<string, string>, file: string): Promise<void>;
  /** Restores `file` into an empty place; the environment of an instance started there. */
  restore(file: string, dir: string, env: Record<string, string>): Promise<Record<string, string>>;
  cleanup(): Promise<void>;
}

async function pgTool(args: string[]): Promise<void> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), stderr: "piped" }).output();
  equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

async function methodFor(kind: StoreKind): Promise<{ env: Record<string, string>; m: Method }> {
  if (kind === "sqlite") {
    return {
      env: {},
      m: {
        async backup(env, file) {
          // In this process, the function `main.ts backup` runs, so the snapshot follows the
          // moment the test calls "the backup began" closely: a copy that missed the recent
          // commits (those still in the WAL) would lose the last acknowledged runs.
          await writeBackup(resolveConfig(readSources(env), env), env, file);
          equal((await Deno.stat(file)).mode! & 0o777, 0o600);
        },
        async restore(file, dir) {
          // Another key in the environment would win at startup and open no credential.
          const wrong = await run(["restore", "--from", file], {
            SERVICE_DATA_DIR: `${dir}/c`,
            SERVICE_ENCRYPTION_KEY: testSecrets().SERVICE_ENCRYPTION_KEY,
          });
          equal(wrong.code, 2);
          match(
            wrong.stderr,
            /the secrets of datasources warehouse do not open under SERVICE_ENCRYPTION_KEY from the environment/,
          );
          equal(await Deno.lstat(`${dir}/c`).catch(() => null), null, "nothing is left behind");
          const env = { SERVICE_DATA_DIR: `${dir}/b` };
          const out = await run(["restore", "--from", file], env);
          equal(out.code, 0, out.stderr);
          const report = JSON.parse(out.stdout.trim().split("\n").at(-1)!);
          equal(report.message, "restore complete; the instance starts");
          equal(report.sealed_datasources_checked, 1);
          deepEqual(report.datasources_under_source_dir, ["demo_crm", "demo_shop"]);
          return env;
        },
        cleanup: () => Promise.resolve(),
      },
    };
  }
  const source = await freshPostgresDatabase();
  const restored: { drop(): Promise<void> }[] = [];
  const secrets = testSecrets();
  return {
    env: { SERVICE_STORE_URL: source.url, ...secrets },
    m: {
      // The steps of docs/operations.md, "PostgreSQL".
      backup: (_env, file) => pgTool(["pg_dump", "--format=custom", `--file=${file}`, source.url]),
      async restore(file, dir) {
        const target = await freshPostgresDatabase();
        restored.push(target);
        await pgTool([
          "pg_restore",
          "--no-owner",
          "--exit-on-error",
          `--dbname=${target.url}`,
          file,
        ]);
        return { SERVICE_DATA_DIR: `${dir}/b`, SERVICE_STORE_URL: target.url, ...secrets };
      },
      async cleanup() {
        for (const db of [source, ...restored]) await db.drop();
      },
    },
  };
}

forEachStoreKind(
  "a backup taken while runs write restores every acknowledged run, the sessions and the credentials",
  async (kind) => {
    const dir = await Deno.makeTempDir({ prefix: "svc_backup_" });
    const { env: storeEnv, m } = await methodFor(kind);
    const envA = { SERVICE_DATA_DIR: `${dir}/a`, ...storeEnv };
    const file = `${dir}/backup.file`;
    const canary = `canary-${crypto.randomUUID()}`;
    let a: ServerProcess | undefined;
    let b: ServerProcess | undefined;
    try {
      const h = await seedOperator(envA);
      a = new ServerProcess({ ...envA, SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "100000" });
      await a.ready;
      // Trust authentication ignores the password, so the sealed canary still connects.
      const created = await call(client(a), "POST", "/api/v1/datasources", h, {
        name: "warehouse",
        dialect: "POSTGRES",
        jdbc_url: pgJdbcUrl(POSTGRES_ADMIN_URL),
        credential: { kind: "password", username: "postgres", secret: canary },
        workspace: "demo",
      });
      equal(created.status, 201, JSON.stringify(created.body));
      const pipelines = (await call(client(a), "GET", "/api/v1/pipelines?prefix=demo", h)).body;
      const pipelineId = pipelines.data.pipelines.find((p: Json) =>
        p.name === "demo/top_customers"
      ).id;

      const loop = new RunLoop(a.url, h, pipelineId);
      await eventually(() => loop.ended.size >= 20 || loop.errors.length > 0, {
        what: "the first runs",
        ms: 60_000,
      });
      const backupStart = performance.now();
      await m.backup(envA, file);
      const backupEnd = performance.now();
      await eventually(() => loop.acked.some((r) => r.sent > backupEnd) || loop.errors.length > 0, {
        what: "a run after the backup",
        ms: 60_000,
      });
      await loop.stop();
      deepEqual(loop.errors, []);
      const before = loop.acked.filter((r) => r.at < backupStart).map((r) => r.id);
      const after = loop.acked.filter((r) => r.sent > backupEnd).map((r) => r.id);
      const endedBefore = [...loop.ended].filter(([, at]) => at < backupStart).map(([id]) => id);
      ok(endedBefore.length >= 20);
      ok(
        loop.acked.some((r) => r.sent < backupStart && loop.ended.get(r.id)! > backupStart),
        "a run was writing when the backup began",
      );
      equal(await a.stop(), 0);

      const envB = await m.restore(file, dir, envA);
      b = new ServerProcess(envB);
      await b.ready;
      // The session issued on the first instance: the JWT secret travelled with the store.
      for (const id of before) {
        const got = await call(client(b), "GET", `/api/v1/executions/${id}`, h);
        equal(got.status, 200, `execution ${id} acknowledged before the backup is restored`);
        if (endedBefore.includes(id)) equal(got.body.data.status, "SUCCESS", id);
      }
      // The stored stream travelled; the result lives in the shared store, which is not backed up.
      const result = await call(client(b), "GET", `/api/v1/executions/${endedBefore[0]}/result`, h);
      deepEqual([result.status, result.body.error?.code], [410, "result.expired"]);
      const events = await call(client(b), "GET", `/api/v1/executions/${endedBefore[0]}/events`, h);
      equal(events.status, 200, JSON.stringify(events.body));
      const kinds = events.body.data.events.map((e: Json) => e.event);
      deepEqual([kinds[0], kinds.includes("pipeline_completed")], ["execution_started", true]);
      // A snapshot of one instant: nothing started after the backup ended is in it.
      ok(after.length > 0);
      for (const id of after) {
        equal((await call(client(b), "GET", `/api/v1/executions/${id}`, h)).status, 404, id);
      }
      const test = await call(client(b), "POST", "/api/v1/datasources/warehouse/test", h);
      deepEqual([test.status, test.body.data?.connected], [200, true], JSON.stringify(test.body));
      const again = new RunLoop(b.url, h, pipelineId, 1);
      await eventually(() => again.ended.size >= 1 || again.errors.length > 0, {
        what: "a run on the restored instance",
        ms: 60_000,
      });
      await again.stop();
      deepEqual(again.errors, []);
      const all = [...a.lines, a.stderr, ...b.lines, b.stderr].join("\n");
      ok(!all.includes(canary), "the credential never reaches a log");
    } finally {
      await a?.stop("SIGKILL");
      await b?.stop("SIGKILL");
      await m.cleanup();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
