/**
 * Pool retirement across real server processes (spec 3 §3): two `main.ts serve` instances share
 * one PostgreSQL store and Redis. A change made on one instance retires the datasource's pool on
 * the other, so the other stops serving the old definition from its open pool.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { PROPAGATION_MS, replicaPairTest } from "./support/replica_pair.ts";
import { eventually } from "./support/wait.ts";

replicaPairTest(
  "an update or delete on one server process retires the datasource's pool on another",
  async ({ a, b, setup, dir }) => {
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
    await eventually(async () => (await tablesOn(a.url)) === "t_two", PROPAGATION_MS);

    equal((await send(b.url, "DELETE", "/api/v1/datasources/shop")).status, 204);
    await eventually(async () => (await tablesOn(a.url)) === "404", PROPAGATION_MS);
    deepEqual(await Promise.all([a, b].map((s) => s.stop())), [0, 0]);
  },
  { stopSignal: "SIGKILL" },
);
