/**
 * The endpoint matcher across real server processes (spec 3 §4.3, issue 13): two `main.ts serve`
 * instances share one PostgreSQL store and Redis. Publishing, disabling and unpublishing on one
 * changes what the other serves within moments, through the shared store's channel, not its
 * one-minute staleness bound.
 */
import { equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./access_fixtures.ts";
import { withReplicaPair } from "./replica_pair.ts";
import { skipUnless } from "./services.ts";
import { eventually } from "./wait.ts";

/** Well inside the matcher's one-minute bound: only the channel can explain a change this fast. */
const PROPAGATION_MS = 10_000;

Deno.test({
  name: "[postgres+redis] endpoint changes on one server process reach the other's matcher",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    await withReplicaPair(
      { env: { SERVICE_DEMO_ENABLED: "false" } },
      async ({ a, b, setup }) => {
        const f = await seedRoles(setup);
        const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
        const saved = await setup.pipelines.lifecycle.create(ctx, {
          name: "api/team",
          body: {
            name: "api/team",
            schema_version: 1,
            parameters: { team: { type: "string", required: true } },
            nodes: [{ id: "r", type: "DQL", source: "tempdb", sql: "SELECT :team AS team" }],
          },
          attrs: {},
        });
        await setup.pipelines.lifecycle.release(ctx, saved.entity.id, saved.version.body_hash);
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
            pipeline_id: saved.entity.id,
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
  },
});
