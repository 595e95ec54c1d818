/**
 * Two instances sharing one PostgreSQL store and one Redis (spec 3 §3): a datasource registered
 * on one is served by both with the same sealed secret, and an update or delete on one retires
 * the pool on the other through the shared store's invalidation channel.
 */
import { deepEqual, equal } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, startTestServer, testSecrets } from "./support/harness.ts";
import { REDIS_URL, skipUnless } from "./support/services.ts";
import { eventually } from "./support/wait.ts";

Deno.test({
  name: "an update or delete on one instance retires the datasource's pool on the other",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const env = { ...testSecrets(), SERVICE_SHARED_STORE_URL: REDIS_URL };
    const a = await startTestServer({ store: "postgres", env });
    let storeUrl = "";
    const b = await startTestServer({
      store: "postgres",
      env,
      storeUrl: () => (storeUrl = a.runtime.config.store.url),
    });
    try {
      equal(storeUrl, a.runtime.config.store.url);
      const f = await seedRoles(a.runtime);
      const ha = await sessionHeaders(a.runtime, f.users.ws_admin, "acme");
      const hb = await sessionHeaders(b.runtime, f.users.ws_admin, "acme");
      const store = new URL(a.runtime.config.store.url);
      const body = {
        name: "shared-pg",
        dialect: "POSTGRES",
        jdbc_url: `jdbc:postgresql://${store.hostname}:${store.port || 5432}${store.pathname}`,
        credential: { kind: "none", username: decodeURIComponent(store.username) },
      };
      equal((await call(a, "POST", "/api/v1/datasources", ha, body)).status, 201);
      for (const [s, h] of [[a, ha], [b, hb]] as const) {
        const r = await call(s, "GET", "/api/v1/datasources/shared-pg/schemas", h);
        equal(r.status, 200, JSON.stringify(r.body));
        equal(s.runtime.pools.has("shared-pg"), true);
      }

      const put = await call(a, "PUT", "/api/v1/datasources/shared-pg", ha, {
        ...body,
        readonly: true,
      });
      equal(put.status, 200);
      equal(a.runtime.pools.has("shared-pg"), false);
      await eventually(() => !b.runtime.pools.has("shared-pg"), {
        what: "the other instance to retire its pool",
        ms: 10_000,
      });

      equal((await call(b, "GET", "/api/v1/datasources/shared-pg/tables", hb)).status, 200);
      equal(b.runtime.pools.has("shared-pg"), true);
      equal((await call(a, "DELETE", "/api/v1/datasources/shared-pg", ha)).status, 204);
      await eventually(() => !b.runtime.pools.has("shared-pg"), {
        what: "the delete to reach the other instance",
        ms: 10_000,
      });
      const gone = await call(b, "GET", "/api/v1/datasources/shared-pg/schemas", hb);
      deepEqual([gone.status, gone.body.error.code], [404, "datasource.not_found"]);
    } finally {
      await b.close();
      await a.close();
    }
  },
});
