/**
 * Pool retirement across real server processes (spec 3 §3): two `main.ts serve` instances share
 * one PostgreSQL store and Redis. A change made on one instance retires the datasource's pool on
 * the other, so the other stops serving the old definition from its open pool.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime } from "../src/runtime.ts";
import { seedRoles, sessionHeaders } from "./access_fixtures.ts";
import { testSecrets } from "./harness.ts";
import { ServerProcess } from "./server_process.ts";
import { REDIS_URL, skipUnless } from "./services.ts";
import { freshPostgresDatabase } from "./stores.ts";
import { eventually } from "./wait.ts";

Deno.test({
  name: "an update or delete on one server process retires the datasource's pool on another",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const db = await freshPostgresDatabase();
    const dir = await Deno.makeTempDir({ prefix: "svc_ds_proc_" });
    const env = {
      SERVICE_STORE_URL: db.url,
      SERVICE_SHARED_STORE_URL: REDIS_URL,
      ...testSecrets(),
    };
    const servers = [
      new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/a` }),
      new ServerProcess({ ...env, SERVICE_DATA_DIR: `${dir}/b` }),
    ];
    // A third instance in this process seeds users and mints sessions with the shared secret.
    const setupEnv = { ...env, SERVICE_DATA_DIR: `${dir}/setup`, SERVICE_HTTP_PORT: "0" };
    const setup = await createRuntime(resolveConfig(readSources(setupEnv), setupEnv), {
      env: setupEnv,
      logger: createLogger("error"),
    });
    try {
      await Promise.all(servers.map((s) => s.ready));
      const [a, b] = servers;
      for (const [file, table] of [["one.db", "t_one"], ["two.db", "t_two"]]) {
        const sqlite = new DatabaseSync(`${dir}/${file}`);
        sqlite.exec(`CREATE TABLE ${table} (x INTEGER)`);
        sqlite.close();
      }
      const f = await seedRoles(setup);
      const h = {
        ...await sessionHeaders(setup, f.users.ws_admin, "acme"),
        "content-type": "application/json",
        accept: "application/json",
      };
      const send = async (base: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, {
          method,
          headers: h,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json().catch(() => ({})) };
      };
      const tablesOn = async (base: string) => {
        const r = await send(base, "GET", "/api/v1/datasources/shop/tables");
        return r.status === 200
          ? r.body.data.tables.map((t: { name: string }) => t.name).join()
          : `${r.status}`;
      };

      const definition = (file: string) => ({
        name: "shop",
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${dir}/${file}`,
      });
      equal((await send(a.url, "POST", "/api/v1/datasources", definition("one.db"))).status, 201);
      equal(await tablesOn(a.url), "t_one", "A opened its pool on the first file");

      equal(
        (await send(b.url, "PUT", "/api/v1/datasources/shop", definition("two.db"))).status,
        200,
      );
      await eventually(async () => (await tablesOn(a.url)) === "t_two", 10_000);

      equal((await send(b.url, "DELETE", "/api/v1/datasources/shop")).status, 204);
      await eventually(async () => (await tablesOn(a.url)) === "404", 10_000);
      deepEqual(await Promise.all(servers.map((s) => s.stop())), [0, 0]);
    } finally {
      await Promise.all(servers.map((s) => s.stop("SIGKILL")));
      await setup.close();
      await db.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
