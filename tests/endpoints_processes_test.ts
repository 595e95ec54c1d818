/**
 * The endpoint matcher across real server processes (spec 3 §4.3, issue 13): two `main.ts serve`
 * instances share one PostgreSQL store and Redis. Publishing, disabling and unpublishing on one
 * changes what the other serves within moments, through the shared store's channel, not its
 * one-minute staleness bound; so do a release, a datasource change, a revoked grant and a
 * deactivated workspace, which the other serves from memory until told.
 */
import { equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { PROPAGATION_MS, replicaPairTest } from "./support/replica_pair.ts";
import { eventually } from "./support/wait.ts";
import { teamPipeline } from "./support/pipeline_body.ts";

replicaPairTest(
  "endpoint changes on one server process reach the other's matcher",
  async ({ a, b, setup }) => {
    const f = await seedRoles(setup);
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const pipelineId = await teamPipeline({ runtime: setup }, ctx, "api/team");
    const author = {
      ...await sessionHeaders(setup, f.users.author, "acme"),
      "content-type": "application/json",
      accept: "application/json",
    };
    const key = {
      "SVC-API-Key": await userKey(setup, f.users.author, f.workspace.id, ["execute", "read"]),
    };
    const manage = async (base: string, method: string, body?: unknown, query = "") => {
      const res = await fetch(`${base}/api/v1/endpoints${query}`, {
        method,
        headers: author,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.body?.cancel();
      return res.status;
    };
    const servedOn = async (base: string) => {
      const res = await fetch(`${base}/api/x/teams/red`, { headers: key });
      await res.body?.cancel();
      return res.status;
    };
    const becomes = (base: string, status: number) =>
      eventually(async () => (await servedOn(base)) === status, PROPAGATION_MS);

    // B has built its matcher (nothing published) before A changes anything.
    equal(await servedOn(b.url), 404);
    equal(
      await manage(a.url, "POST", {
        path_pattern: "/teams/{team}",
        pipeline_id: pipelineId,
      }),
      201,
    );
    await becomes(b.url, 200);
    const path = `?path=${encodeURIComponent("/teams/{team}")}`;
    equal(await manage(a.url, "PUT", { enabled: false }, path), 200);
    await becomes(b.url, 404);
    // And the other way round: B enables, A serves.
    equal(await servedOn(a.url), 404);
    equal(await manage(b.url, "PUT", { enabled: true }, path), 200);
    await becomes(a.url, 200);
    await becomes(b.url, 200);
    equal(await manage(a.url, "DELETE", undefined, path), 204);
    await becomes(b.url, 404);
  },
);

replicaPairTest(
  "what a serve re-checks and the datasource it reads follow the other process",
  async ({ a, b, setup, dir }) => {
    for (const [file, value] of [["one.db", "one"], ["two.db", "two"]]) {
      const sqlite = new DatabaseSync(`${dir}/${file}`);
      sqlite.exec(`CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('${value}')`);
      sqlite.close();
    }
    const f = await seedRoles(setup);
    const json = { "content-type": "application/json", accept: "application/json" };
    const root = { ...await sessionHeaders(setup, f.users.super_admin, "acme"), ...json };
    const author = { ...await sessionHeaders(setup, f.users.author, "acme"), ...json };
    const send = async (
      base: string,
      h: HeadersInit,
      method: string,
      path: string,
      body?: unknown,
    ) => {
      const res = await fetch(base + path, {
        method,
        headers: h,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.body?.cancel();
      return res.status;
    };
    const shop = (file: string) => ({
      name: "shop",
      dialect: "SQLITE",
      jdbc_url: `jdbc:sqlite:${dir}/${file}`,
      readonly: true,
      global: true,
    });
    equal(await send(a.url, root, "POST", "/api/v1/datasources", shop("one.db")), 201);
    const grants = "/api/v1/datasources/shop/grants/acme";
    equal(await send(a.url, root, "POST", grants), 200);

    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const life = setup.pipelines.lifecycle;
    const body = (sql: string) => ({
      name: "api/v",
      schema_version: 1,
      nodes: [{ id: "r", type: "DQL", source: "shop", sql }],
    });
    const saved = await life.create(ctx, { name: "api/v", body: body("SELECT v FROM t") });
    await life.release(ctx, saved.entity.id, saved.version.body_hash);
    equal(
      await send(a.url, author, "POST", "/api/v1/endpoints", {
        path_pattern: "/v",
        pipeline_id: saved.entity.id,
      }),
      201,
    );
    const key = {
      "SVC-API-Key": await userKey(setup, f.users.author, f.workspace.id, ["execute", "read"]),
    };
    const servedOn = async (base: string) => {
      const res = await fetch(`${base}/api/x/v`, { headers: key });
      if (res.status !== 200) {
        await res.body?.cancel();
        return String(res.status);
      }
      return String((await res.json()).rows[0][0]);
    };
    const becomes = (base: string, answer: string) =>
      eventually(async () => (await servedOn(base)) === answer, PROPAGATION_MS);

    // B judges the release and reads the datasource once; from here it serves from memory.
    await becomes(b.url, "one");
    equal(await servedOn(b.url), "one");

    // A new release, made by the third instance: B serves it.
    const next = await life.update(ctx, saved.entity.id, saved.version.body_hash, {
      body: body("SELECT v || '2' AS v FROM t"),
    });
    await life.release(ctx, saved.entity.id, next.version.body_hash);
    await becomes(b.url, "one2");

    // The datasource moved on A: B's runs read the new definition.
    equal(await send(a.url, root, "PUT", "/api/v1/datasources/shop", shop("two.db")), 200);
    await becomes(b.url, "two2");

    // The grant revoked on A: B's runs no longer find the datasource; granted again, they do.
    equal(await send(a.url, root, "DELETE", grants), 204);
    await eventually(async () => (await servedOn(b.url)) !== "two2", PROPAGATION_MS);
    equal(await send(a.url, root, "POST", grants), 200);
    await becomes(b.url, "two2");

    // The workspace deactivated on A: B answers its endpoint like an unknown path.
    equal(await send(a.url, root, "POST", "/api/v1/workspaces/acme/deactivate"), 200);
    await becomes(b.url, "404");
  },
);
