import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { ensureSystemActor, type SystemActor } from "../identity/mod.ts";
import type { Db } from "../store/mod.ts";
import { BootstrapFileError } from "./bootstrap.ts";
import { CANARY, type DatasourceFixture, datasourceFixture } from "./test_fixtures.ts";

const YAML = `
datasources:
  - name: warehouse
    display_name: Warehouse
    dialect: POSTGRES
    jdbc_url: jdbc:postgresql://db.internal:5432/warehouse
    credential:
      kind: password
      username: reader
      secret_env: WAREHOUSE_PASSWORD
    readonly: true
  - name: acme-files
    dialect: SQLITE
    jdbc_url: jdbc:sqlite:/srv/acme.db
    workspace: acme
  - name: later
    dialect: DUCKDB
    jdbc_url: "jdbc:duckdb:"
    workspace: not-yet
`;

/** Each test imports as the system actor, over the datasource fixture, from a scratch folder. */
function bootstrapTest(
  name: string,
  fn: (at: { db: Db; f: DatasourceFixture; system: SystemActor; dir: string }) => Promise<void>,
): void {
  forEachStore(name, async (db) => {
    const f = await datasourceFixture(db);
    const system = await ensureSystemActor(db);
    const dir = await Deno.makeTempDir();
    try {
      await fn({ db, f, system, dir });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

bootstrapTest(
  "the bootstrap file imports once, as the system actor; a restart changes nothing",
  async ({ db, f, system, dir }) => {
    const file = `${dir}/datasources.yaml`;
    await Deno.writeTextFile(file, YAML);
    const env = { WAREHOUSE_PASSWORD: CANARY };
    const first = await f.ds.importBootstrap(system, file, env);
    deepEqual(first, { created: ["warehouse", "acme-files"], existing: [], skipped: ["later"] });
    const wh = await f.ds.get(f.root, null, "warehouse");
    deepEqual([wh.global, wh.workspace, wh.readonly, wh.username], [true, null, true, "reader"]);
    const files = await f.ds.get(f.admin, await f.ctx("acme", f.admin), "acme-files");
    deepEqual([files.global, files.workspace], [false, "acme"]);
    const rows = await db.query<{ created_by: string; updated_at: unknown }>(
      "SELECT created_by, updated_at FROM datasources ORDER BY name",
    );
    ok(rows.every((r) => String(r.created_by) === system.id));
    const rec = await f.ds.record(f.root, null, "warehouse");
    equal((await f.ds.openCredential(f.root, rec, "test")).secret, CANARY);

    const second = await f.ds.importBootstrap(system, file, env);
    deepEqual(second, { created: [], existing: ["warehouse", "acme-files"], skipped: ["later"] });
    deepEqual(
      await db.query("SELECT created_by, updated_at FROM datasources ORDER BY name"),
      rows,
    );
    ok(!f.logs.join("\n").includes(CANARY));
  },
);

bootstrapTest(
  "a bad bootstrap file stops with one line naming the entry, never the secret",
  async ({ db, f, system, dir }) => {
    const file = `${dir}/ds.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify([{
        name: "bad",
        dialect: "POSTGRES",
        jdbc_url: "jdbc:postgresql://h/d",
        credential: { kind: "password", secret: CANARY },
        properties: { hikari: { maximumPoolSize: 500 } },
      }]),
    );
    await rejects(f.ds.importBootstrap(system, file, {}), (e: Error) => {
      ok(e instanceof BootstrapFileError);
      ok(e.message.includes("entry 1 (bad)"), e.message);
      ok(e.message.includes("datasource.validation.properties_invalid"), e.message);
      ok(!e.message.includes(CANARY));
      return true;
    });
    await Deno.writeTextFile(file, "{datasources: 3}");
    await rejects(f.ds.importBootstrap(system, file, {}), BootstrapFileError);
    await Deno.writeTextFile(
      file,
      "- {name: x, dialect: POSTGRES, jdbc_url: 'jdbc:postgresql://h/d', password_env: NOPE}",
    );
    await rejects(f.ds.importBootstrap(system, file, {}), /NOPE is not set/);
    await rejects(f.ds.importBootstrap(system, `${dir}/missing.yaml`, {}), /cannot be read/);
    equal((await db.query("SELECT 1 FROM datasources")).length, 0);
  },
);
