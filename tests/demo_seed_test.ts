/**
 * The demo seed's once-only rule across boots of one store and data directory: a second boot
 * duplicates nothing, a deactivated demo workspace is never filled, and an interrupted seed is
 * finished rather than repeated.
 */
import { deepEqual, equal } from "node:assert/strict";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { DEMO_TEMPLATES, demoFiles, seedDemoContent, SEEDED_EVENT } from "../src/demo/mod.ts";
import { systemPrincipal } from "../src/identity/mod.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import type { Queryable } from "../src/store/mod.ts";
import { testSecrets } from "./support/harness.ts";
import { forEachStore, type TestStore } from "./support/stores.ts";

/** One instance start on `store` and `dataDir`, as main.ts does it; logs collected. */
async function boot(
  store: TestStore,
  dataDir: string,
  secrets: Record<string, string>,
  demo: boolean,
): Promise<{ rt: Runtime; logs: string[] }> {
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_STORE_URL: store.url,
    SERVICE_DEMO_ENABLED: String(demo),
    ...secrets,
  };
  const logs: string[] = [];
  const rt = await createRuntime(resolveConfig(readSources(env), env), {
    env,
    logger: createLogger("debug", (line) => logs.push(line)),
  });
  return { rt, logs };
}

/** What the demo workspace holds: names and versions of each kind, and the seed markers. */
async function inventory(db: Queryable) {
  const ws = (await db.first<{ id: string }>(`SELECT id FROM workspaces WHERE name = 'demo'`))!;
  const names = async (sql: string) =>
    (await db.query<{ n: string }>(sql, [ws.id])).map((r) => String(r.n)).sort();
  return {
    datasources: await names(`SELECT name AS n FROM datasources WHERE workspace_id = $1`),
    templates: await names(
      `SELECT t.name || ' v' || v.version || ' ' || v.status AS n
       FROM templates t JOIN template_versions v ON v.template_id = t.id WHERE t.workspace_id = $1`,
    ),
    pipelines: await names(
      `SELECT p.id || ' ' || p.name || ' v' || v.version || ' ' || v.status AS n
       FROM pipelines p JOIN pipeline_versions v ON v.pipeline_id = p.id WHERE p.workspace_id = $1`,
    ),
    markers: await names(
      `SELECT id AS n FROM audit_log WHERE event = '${SEEDED_EVENT}' AND workspace_id = $1`,
    ),
    /** Audit rows of the workspace: event, provider, whether the system actor wrote it. */
    audit: await names(
      `SELECT event || ' ' || provider || ' ' ||
              CASE WHEN user_id = (SELECT id FROM users WHERE provider = 'system') THEN 'system'
                   ELSE 'other' END AS n
       FROM audit_log WHERE workspace_id = $1 AND event <> 'auth.workspace.created'`,
    ),
  };
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

function withDataDir(fn: (store: TestStore, dataDir: string) => Promise<void>) {
  return async (_db: unknown, store: TestStore) => {
    const dataDir = await Deno.makeTempDir({ prefix: "svc_demo_" });
    try {
      await fn(store, dataDir);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  };
}

forEachStore(
  "a second boot leaves the seeded demo content exactly as the first left it",
  withDataDir(async (store, dataDir) => {
    const secrets = store.kind === "postgres" ? testSecrets() : {};
    const first = await boot(store, dataDir, secrets, true);
    const seeded = await inventory(first.rt.db);
    const shop = await Deno.stat(demoFiles(dataDir).shop);
    await first.rt.close();
    equal(seeded.datasources.length, 2);
    equal(seeded.templates.length, DEMO_TEMPLATES.length);
    equal(seeded.pipelines.length, 4);
    equal(seeded.markers.length, 1);
    // Written by the services themselves, as the system actor.
    const count = (event: string) =>
      seeded.audit.filter((a) => a === `${event} system system`).length;
    deepEqual(
      [
        "datasource.created",
        "template.created",
        "template.version.released",
        "pipeline.created",
        "pipeline.version.released",
        SEEDED_EVENT,
      ].map(count),
      [2, 6, 6, 4, 4, 1],
    );
    equal(seeded.audit.length, 23);
    for (const row of [...seeded.templates, ...seeded.pipelines]) {
      equal(row.endsWith(" RELEASED"), true);
    }
    equal(first.logs.filter((l) => l.includes("demo content seeded")).length, 1);

    const second = await boot(store, dataDir, secrets, true);
    try {
      deepEqual(await inventory(second.rt.db), seeded);
      equal(second.logs.some((l) => l.includes("demo content seeded")), false);
      // The files were not rewritten either.
      equal((await Deno.stat(demoFiles(dataDir).shop)).mtime?.getTime(), shop.mtime?.getTime());
    } finally {
      await second.rt.close();
    }

    // A replica with an empty data directory writes the same files again, and nothing else.
    await Deno.remove(`${dataDir}/demo`, { recursive: true });
    const third = await boot(store, dataDir, secrets, true);
    try {
      deepEqual(await inventory(third.rt.db), seeded);
      equal((await Deno.stat(demoFiles(dataDir).shop)).size, shop.size);
      equal(await exists(demoFiles(dataDir).crm), true);
    } finally {
      await third.rt.close();
    }
  }),
  { migrate: false },
);

forEachStore(
  "a deactivated demo workspace is never filled, and a seed interrupted halfway is finished",
  withDataDir(async (store, dataDir) => {
    const secrets = store.kind === "postgres" ? testSecrets() : {};
    // First boot with the content switched off: the workspace exists, empty.
    const first = await boot(store, dataDir, secrets, false);
    const system = systemPrincipal(first.rt.systemActor);
    try {
      const empty = await inventory(first.rt.db);
      deepEqual(empty, { datasources: [], templates: [], pipelines: [], markers: [], audit: [] });
      await first.rt.workspaces.deactivate(system, "demo");
    } finally {
      await first.rt.close();
    }

    const second = await boot(store, dataDir, secrets, true);
    try {
      const { audit, ...content } = await inventory(second.rt.db);
      deepEqual(content, { datasources: [], templates: [], pipelines: [], markers: [] });
      deepEqual(audit, ["workspace.deactivated system system"]);
      equal(await exists(demoFiles(dataDir).shop), false);

      // Reactivated, with a seed that stopped after its first template's draft: finished once.
      await second.rt.workspaces.reactivate(system, "demo");
      const ws = (await second.rt.workspaces.get("demo"))!;
      const t = DEMO_TEMPLATES[0];
      await second.rt.templates.create({ actor: system, workspaceId: ws.id }, {
        id: t.id,
        type: "sql",
        dialect: t.dialect,
        display_name: t.display_name,
        imports: [],
        body: t.body,
      });
      const deps = {
        db: second.rt.db,
        dataDir,
        logger: second.rt.logger,
        systemActor: second.rt.systemActor,
        findWorkspace: (name: string) => second.rt.workspaces.get(name),
        datasources: second.rt.datasources,
        templates: second.rt.templates,
        pipelines: second.rt.pipelines,
      };
      const outcome = await seedDemoContent(deps);
      equal(outcome.seeded, true);
      const filled = await inventory(second.rt.db);
      equal(filled.templates.length, DEMO_TEMPLATES.length);
      equal(filled.templates.filter((n) => n.startsWith(`${t.id} `)).length, 1);
      equal(filled.pipelines.length, 4);
      equal(filled.markers.length, 1);
      deepEqual(await seedDemoContent(deps), { seeded: false, reason: "already_seeded" });

      await second.rt.workspaces.deactivate(system, "demo");
      deepEqual(await seedDemoContent(deps), { seeded: false, reason: "deactivated" });
      const { audit: _, ...after } = await inventory(second.rt.db);
      const { audit: __, ...before } = filled;
      deepEqual(after, before);
    } finally {
      await second.rt.close();
    }
  }),
  { migrate: false },
);
