/**
 * Access facts across real server processes: two `main.ts serve` instances share one PostgreSQL
 * store and Redis. A key revoked, or a membership removed, on one reaches the other's caches
 * through the shared store within moments, not at the end of their one-minute TTL (spec 1 §5.6
 * allows the TTL; the channel makes it faster).
 */
import { equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { PROPAGATION_MS, replicaPairTest } from "./support/replica_pair.ts";
import { eventually } from "./support/wait.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";

replicaPairTest(
  "a key revoked or a membership removed on one process binds the other",
  async ({ a, b, setup }) => {
    const f = await seedRoles(setup);
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const pipelineId = await releasedPipeline(setup, ctx, "api/one", {
      nodes: [dql("r", { source: "tempdb", sql: "SELECT 1 AS one" })],
    });
    await setup.endpoints.publish(ctx, { path_pattern: "/one", pipeline_id: pipelineId });
    const json = { "content-type": "application/json", accept: "application/json" };
    const author = { ...await sessionHeaders(setup, f.users.author, "acme"), ...json };
    const admin = { ...await sessionHeaders(setup, f.users.ws_admin, "acme"), ...json };
    const servedOn = async (base: string, key: string) => {
      const res = await fetch(`${base}/api/x/one`, { headers: { "SVC-API-Key": key } });
      await res.body?.cancel();
      return res.status;
    };
    const becomes = (base: string, key: string, status: number) =>
      eventually(async () => (await servedOn(base, key)) === status, PROPAGATION_MS);

    // B validates both keys and resolves the author's membership: cached from here on.
    const revoked = await userKey(setup, f.users.author, f.workspace.id, ["execute"]);
    const kept = await userKey(setup, f.users.author, f.workspace.id, ["execute"]);
    await becomes(b.url, revoked, 200);
    await becomes(b.url, kept, 200);

    const keyId = revoked.split(".")[0];
    const res = await fetch(`${a.url}/api/v1/auth/api-keys/${keyId}`, {
      method: "DELETE",
      headers: author,
    });
    await res.body?.cancel();
    equal(res.status, 204);
    await becomes(b.url, revoked, 401);
    equal(await servedOn(b.url, kept), 200);

    const removed = await fetch(
      `${a.url}/api/v1/workspaces/acme/members/${f.users.author.id}`,
      { method: "DELETE", headers: admin },
    );
    await removed.body?.cancel();
    equal(removed.status, 204);
    await becomes(b.url, kept, 403);
  },
);
