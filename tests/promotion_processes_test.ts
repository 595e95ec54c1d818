/**
 * Promotion between two real deployments (issue 16, "done means"): a development `main.ts serve`
 * on SQLite and a hardened production `main.ts serve` on PostgreSQL with Redis. Promote,
 * re-promote (refused: not newer), preview a breaking change, promote a newer release, every refusal, a push
 * killed midway (the receiver process is killed while its transaction waits) leaving production
 * exactly as before, and a key rotation without a restart that loses no promotion.
 *
 * In-process runtimes on the same stores seed users and mint sessions (the shared JWT secret);
 * everything else goes over HTTP to the processes.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { readSources } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { createLogger } from "../src/lib/log.ts";
import { createRuntime, type Runtime } from "../src/runtime.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { freePort, type Json, testSecrets } from "./support/harness.ts";
import { ServerProcess } from "./support/server_process.ts";
import { REDIS_URL, skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

type Headers = Record<string, string>;

function client(base: () => string, headers: Headers) {
  return async (method: string, path: string, body?: unknown, extra: Headers = {}) => {
    const res = await fetch(base() + path, {
      method,
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        ...headers,
        ...extra,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) as Json : {} };
  };
}

async function setupRuntime(env: Record<string, string>): Promise<Runtime> {
  const e = { ...env, SERVICE_HTTP_PORT: "0" };
  return await createRuntime(resolveConfig(readSources(e), e), {
    env: e,
    logger: createLogger("error"),
  });
}

/** Every row production holds of promoted content, for before/after comparisons. */
async function productionState(sql: postgres.Sql) {
  return {
    pipelines: await sql`SELECT id, name, current_version FROM pipelines ORDER BY name`,
    versions: await sql`SELECT pipeline_id, version, status, body_hash FROM pipeline_versions
                        ORDER BY pipeline_id, version`,
    templates: await sql`SELECT id, name, current_version FROM templates ORDER BY name`,
    template_versions: await sql`SELECT template_id, version, body_hash FROM template_versions
                                 ORDER BY template_id, version`,
    endpoints: await sql`SELECT path_pattern, pipeline_id FROM endpoints ORDER BY path_pattern`,
    bindings: await sql`SELECT id, bindings FROM api_keys ORDER BY id`,
  };
}

const orders = (tv: number, extra: Json = {}) => ({
  name: "shop/orders",
  parameters: { customer_id: { type: "integer", required: true } },
  nodes: [{ id: "orders", type: "DQL", source: "wh", template: { id: "lib/orders", version: tv } }],
  ...extra,
});

Deno.test({
  name: "promotion from a SQLite development process to a PostgreSQL+Redis production process",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "svc_promo_" });
    const pg = await freshPostgresDatabase();
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    const locker = postgres(pg.url, { max: 1, onnotice: () => {} });
    const warehouse = `${dir}/warehouse.db`;
    const w = new DatabaseSync(warehouse);
    w.exec(
      "CREATE TABLE orders (id INTEGER, amount INTEGER); INSERT INTO orders VALUES (1, 10), (2, 32);",
    );
    w.close();
    const keyFile = `${dir}/target.key`;
    const prodPort = freePort();
    const prodEnv = {
      SERVICE_STORE_URL: pg.url,
      SERVICE_SHARED_STORE_URL: REDIS_URL,
      SERVICE_DATA_DIR: `${dir}/prod`,
      SERVICE_DEMO_ENABLED: "false",
      SERVICE_DEPLOYMENT_NAME: "production",
      SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "false",
      ...testSecrets(),
    };
    const devEnv = {
      SERVICE_STORE_URL: `sqlite:${dir}/dev.db`,
      SERVICE_DATA_DIR: `${dir}/dev`,
      SERVICE_DEMO_ENABLED: "false",
      SERVICE_DEPLOYMENT_NAME: "development",
      ...testSecrets(),
    };
    let prod = new ServerProcess({ ...prodEnv, SERVICE_HTTP_PORT: String(prodPort) });
    await prod.ready;
    const dev = new ServerProcess({
      ...devEnv,
      SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: `http://127.0.0.1:${prodPort}`,
      SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY_FILE: keyFile,
    });
    await dev.ready;
    const prodSetup = await setupRuntime(prodEnv);
    const devSetup = await setupRuntime(devEnv);
    let staging: ServerProcess | undefined;
    try {
      const pf = await seedRoles(prodSetup);
      const df = await seedRoles(devSetup);
      const P = client(
        () => prod.url,
        await sessionHeaders(prodSetup, pf.users.super_admin, "acme"),
      );
      const D = client(() => dev.url, await sessionHeaders(devSetup, df.users.super_admin, "acme"));
      /** Saves `body` as lib/orders' next draft over the one stored; answers its version. */
      const reviseOrders = async (body: string) => {
        const stored = await D("GET", "/api/v1/templates?name=lib/orders");
        const t = await D("PUT", "/api/v1/templates", {
          id: "lib/orders",
          display_name: "orders",
          body,
        }, {
          "If-Match": String(stored.body.data.body_hash),
        });
        equal(t.status, 200, JSON.stringify(t.body));
        return Number(t.body.data.version);
      };
      const promoter = client(
        () => dev.url,
        await sessionHeaders(devSetup, df.users.promoter, "acme"),
      );
      const promote = (id: string) =>
        promoter("POST", "/api/v1/promotion/promote", { pipeline_id: id });
      const preview = (id: string) =>
        promoter("GET", `/api/v1/promotion/preview?pipeline_id=${id}`);
      const datasource = {
        display_name: "Warehouse",
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${warehouse}`,
        credential: { kind: "none" },
        workspace: "acme",
      };

      // Production: one server key for the sender, the datasource, and nothing else.
      const k1 = await P("POST", "/api/v1/auth/api-keys", { name: "from-dev", kind: "server" });
      equal(k1.status, 201, JSON.stringify(k1.body));
      await Deno.writeTextFile(keyFile, String(k1.body.data.key));
      equal((await P("POST", "/api/v1/datasources", { name: "wh", ...datasource })).status, 201);

      // Development: datasources, a template, a released pipeline published with a bound key.
      for (const name of ["wh", "wh2"]) {
        equal((await D("POST", "/api/v1/datasources", { name, ...datasource })).status, 201);
      }
      const tpl = await D("POST", "/api/v1/templates", {
        id: "lib/orders",
        dialect: "SQLITE",
        display_name: "orders",
        body: "SELECT id, amount FROM orders WHERE id = :customer_id",
      });
      equal(tpl.status, 201, JSON.stringify(tpl.body));
      const created = await D("POST", "/api/v1/pipelines", orders(1));
      const id = String(created.body.data.id);
      const releaseNow = async () => {
        const cur = await D("GET", `/api/v1/pipelines/${id}`);
        const r = await D(
          "POST",
          `/api/v1/pipelines/${id}/release?release_pinned_templates=true`,
          undefined,
          { "If-Match": String(cur.body.data.draft?.body_hash ?? cur.body.data.body_hash) },
        );
        equal(r.status, 200, JSON.stringify(r.body));
        return Number(r.body.data.version);
      };
      const save = async (body: Json) => {
        const cur = await D("GET", `/api/v1/pipelines/${id}`);
        const r = await D("PUT", `/api/v1/pipelines/${id}`, body, {
          "If-Match": String(cur.body.data.body_hash),
        });
        equal(r.status, 200, JSON.stringify(r.body));
      };
      // not_released before the first release.
      const nr = await promote(id);
      deepEqual([nr.status, nr.body.error.code], [409, "pipeline.promotion.not_released"]);
      const v1 = await releaseNow();
      equal(
        (await D("POST", "/api/v1/endpoints", {
          path_pattern: "/shop/orders/{customer_id}",
          pipeline_id: id,
        })).status,
        201,
      );
      equal(
        (await D("POST", "/api/v1/auth/api-keys", { name: "shop-app", kind: "endpoint" })).status,
        201,
      );
      equal(
        (await D("POST", "/api/v1/endpoints/bindings", { path: "/shop", key_name: "shop-app" }))
          .status,
        201,
      );

      // Refusals before anything is sent; production unchanged by each.
      const empty = await productionState(sql);
      const km = await promote(id);
      deepEqual([km.status, km.body.error.code], [409, "endpoint.promotion.key_missing"]);
      const otherId = String(
        (await D("POST", "/api/v1/pipelines", {
          name: "shop/other",
          nodes: [{ id: "a", type: "DQL", source: "wh2", sql: "SELECT 1 AS x" }],
        })).body.data.id,
      );
      const oh = await D("GET", `/api/v1/pipelines/${otherId}`);
      equal(
        (await D("POST", `/api/v1/pipelines/${otherId}/release`, undefined, {
          "If-Match": String(oh.body.data.body_hash),
        })).status,
        200,
      );
      const md = await promote(otherId);
      deepEqual([md.status, md.body.error.code], [409, "pipeline.promotion.missing_datasources"]);
      deepEqual(await productionState(sql), empty);

      // target_is_authoring: a second sender process on the development store whose target is
      // the development process itself (authoring enabled).
      const devKey = await D("POST", "/api/v1/auth/api-keys", { name: "to-dev", kind: "server" });
      staging = new ServerProcess({
        ...devEnv,
        SERVICE_DATA_DIR: `${dir}/staging`,
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: dev.url,
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: String(devKey.body.data.key),
      });
      await staging.ready;
      const S = client(
        () => staging!.url,
        await sessionHeaders(devSetup, df.users.promoter, "acme"),
      );
      const ta = await S("POST", "/api/v1/promotion/promote", { pipeline_id: id });
      deepEqual([ta.status, ta.body.error.code], [409, "pipeline.promotion.target_is_authoring"]);

      // The identical 401 across failure kinds, byte for byte, on the production process.
      const corr = { "SVC-Correlation-Id": "00000000-0000-4000-8000-0000000000aa" };
      const bodies = new Set<string>();
      for (
        const presented of [
          undefined,
          "garbage",
          `svck_${"a".repeat(12)}.${"b".repeat(48)}`,
          String(devKey.body.data.key),
        ]
      ) {
        const res = await fetch(`${prod.url}/api/v1/promotion/inventory?workspace=acme`, {
          headers: { ...corr, ...(presented ? { "SVC-Promotion-Key": presented } : {}) },
        });
        equal(res.status, 401);
        bodies.add(await res.text());
      }
      equal(bodies.size, 1);

      // Production gets the endpoint key name; the promotion goes through.
      const prodApp = await P("POST", "/api/v1/auth/api-keys", {
        name: "shop-app",
        kind: "endpoint",
      });
      const first = await promote(id);
      equal(first.status, 200, JSON.stringify(first.body));
      deepEqual(first.body.data.pushed.applied, { templates: 1, pipelines: 1, endpoints: 2 });
      const served = await fetch(`${prod.url}/api/x/shop/orders/2`, {
        headers: { "SVC-API-Key": String(prodApp.body.data.key) },
      });
      const payload = await served.json();
      equal(served.status, 200, JSON.stringify(payload));
      equal(payload.row_count, 1);
      ok(JSON.stringify(payload.rows).includes("32"));

      // Re-promotion of the release production has: not newer, nothing sent.
      const promotedState = await productionState(sql);
      const again = await promote(id);
      deepEqual([again.status, again.body.error.code], [409, "pipeline.promotion.not_newer"]);
      deepEqual(await productionState(sql), promotedState);

      // A breaking v2 (a new required parameter, a column gone), run once on development so its
      // result columns are known; the preview flags it and changes nothing on production.
      const t2 = await reviseOrders(
        "SELECT id FROM orders WHERE id = :customer_id AND :region IS NOT NULL",
      );
      await save(orders(t2, {
        parameters: {
          customer_id: { type: "integer", required: true },
          region: { type: "string", required: true },
        },
      }));
      const v2 = await releaseNow();
      const run = await fetch(`${dev.url}/api/v1/pipelines/${id}/execute`, {
        method: "POST",
        headers: {
          ...(await sessionHeaders(devSetup, df.users.super_admin, "acme")),
          accept: "text/event-stream",
          "content-type": "application/json",
        },
        body: JSON.stringify({ parameters: { customer_id: 1, region: "eu" } }),
      });
      ok((await run.text()).includes("data_ready"));
      const beforePreview = await productionState(sql);
      const pv = await preview(id);
      equal(pv.status, 200, JSON.stringify(pv.body));
      const row = pv.body.data.pipelines.find((p: Json) => p.name === "shop/orders");
      deepEqual([row.target_version, row.new_version, row.change, row.breaking], [
        v1,
        v2,
        "updated",
        true,
      ]);
      deepEqual(row.parameters, [{
        name: "region",
        change: "added",
        to: "string",
        breaking: true,
      }]);
      deepEqual(row.result_columns, [
        { name: "amount", change: "removed", from: "bigint", breaking: true },
      ]);
      equal(pv.body.data.breaking, true);
      deepEqual(await productionState(sql), beforePreview);

      // The newer release arrives.
      const newer = await promote(id);
      equal(newer.status, 200, JSON.stringify(newer.body));
      deepEqual([newer.body.data.previous_version, newer.body.data.pipeline.version], [v1, v2]);

      // not_newer: development serves v1 again.
      equal((await D("POST", `/api/v1/pipelines/${id}/current`, { version: v1 })).status, 200);
      const nn = await promote(id);
      deepEqual([nn.status, nn.body.error.code], [409, "pipeline.promotion.not_newer"]);
      equal((await D("POST", `/api/v1/pipelines/${id}/current`, { version: v2 })).status, 200);

      // A push killed midway: v3 with a new template version; the receiver's transaction writes
      // the template version, then waits on a lock held here; the receiver process is killed.
      const t3 = await reviseOrders("SELECT id, amount FROM orders WHERE id = :customer_id");
      await save(orders(t3, { description: "v3" }));
      const v3 = await releaseNow();
      const beforeKill = await productionState(sql);
      const reserved = await locker.reserve();
      await reserved`BEGIN`;
      await reserved`LOCK TABLE pipeline_versions IN EXCLUSIVE MODE`;
      const inFlight = promote(id);
      // The push is inside its transaction once a backend waits on our lock.
      await eventually(async () => {
        const waiting = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        return waiting[0].n > 0;
      }, 30_000);
      await prod.stop("SIGKILL");
      await reserved`ROLLBACK`;
      reserved.release();
      const killed = await inFlight;
      deepEqual([killed.status, killed.body.error.code], [
        502,
        "pipeline.promotion.target_unreachable",
      ]);
      await eventually(async () => {
        const left = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        return left[0].n === 0;
      }, 30_000);
      deepEqual(await productionState(sql), beforeKill, "production exactly as before");

      // Production restarts; the same promotion now lands whole.
      prod = new ServerProcess({ ...prodEnv, SERVICE_HTTP_PORT: String(prodPort) });
      await prod.ready;
      const retried = await promote(id);
      equal(retried.status, 200, JSON.stringify(retried.body));
      deepEqual([retried.body.data.previous_version, retried.body.data.pipeline.version], [v2, v3]);

      // Key rotation without a restart: promotions of ever newer releases run back to back while
      // a second key is minted, written to the sender's key file, and the first revoked. None is
      // lost.
      let stop = false;
      const outcomes: number[] = [];
      const loop = (async () => {
        while (!stop || outcomes.length < 3) {
          await save(orders(t3, { description: `rotation ${outcomes.length}` }));
          await releaseNow();
          outcomes.push((await promote(id)).status);
        }
      })();
      await eventually(() => outcomes.length >= 2, 30_000);
      const k2 = await P("POST", "/api/v1/auth/api-keys", { name: "from-dev-2", kind: "server" });
      await Deno.writeTextFile(keyFile, String(k2.body.data.key));
      const mark = outcomes.length;
      equal((await P("DELETE", `/api/v1/auth/api-keys/${k1.body.data.id}`)).status, 204);
      await eventually(() => outcomes.length >= mark + 3, 30_000);
      stop = true;
      await loop;
      deepEqual(outcomes.filter((s) => s !== 200), [], JSON.stringify(outcomes));
      const old = await fetch(`${prod.url}/api/v1/promotion/inventory?workspace=acme`, {
        headers: { "SVC-Promotion-Key": String(k1.body.data.key) },
      });
      equal(old.status, 401);
      await old.body?.cancel();
      // Production's audit: accepted pushes under both fingerprints, never a key.
      const accepted =
        await sql`SELECT details FROM audit_log WHERE event = 'auth.promotion.accepted'`;
      const prints = new Set(accepted.map((r) => JSON.parse(r.details).key_fingerprint));
      equal(prints.size, 2);
      ok(!JSON.stringify(accepted).includes(String(k2.body.data.key)));
    } finally {
      await staging?.stop();
      await dev.stop();
      await prod.stop();
      await prodSetup.close();
      await devSetup.close();
      await sql.end();
      await locker.end();
      await pg.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
