/** Pipeline bodies for tests: one node builder and one body builder instead of literals. */
import type { Db } from "../../src/store/mod.ts";
import { type JsonObject, PIPELINE_KIND, VersionLifecycle } from "../../src/versions/mod.ts";
import type { TestUser } from "./access_fixtures.ts";
import type { TestServer } from "./harness.ts";
import type { Principal } from "../../src/identity/mod.ts";

export interface DqlNode {
  id: string;
  type: "DQL";
  [field: string]: unknown;
}

/** A DQL node: `dql("read", { source: "crm", sql: "SELECT 1" })`; any other field passes through. */
export function dql(id: string, fields: Record<string, unknown>): DqlNode {
  return { id, type: "DQL", ...fields };
}

/** A whole pipeline body (schema version 1) around its nodes; other fields pass through. */
export function pipelineBody(
  { name, nodes, ...rest }: { name: string; nodes: unknown[]; [field: string]: unknown },
): Record<string, unknown> {
  return { name, schema_version: 1, nodes, ...rest };
}

/**
 * A DQL node that stages its rows in the private DuckDB as table `id` (or `table`); any other
 * field (`depends_on`, say) passes through.
 */
export function staged(
  id: string,
  source: string,
  sql: string,
  { table = id, ...fields }: { table?: string; [field: string]: unknown } = {},
): DqlNode {
  return dql(id, { source, sql, ...fields, output: { target: "tempdb", table } });
}

/**
 * Saves drafts as `author` in a workspace straight through the version lifecycle (no HTTP);
 * the returned function takes a name, the nodes and any other body fields, and answers the id.
 */
export function pipelineDrafts(
  db: Db,
  author: TestUser,
  workspaceId: string,
): (name: string, nodes: unknown[], extra?: Record<string, unknown>) => Promise<string> {
  const pipelines = new VersionLifecycle({ db, kind: PIPELINE_KIND, authoringEnabled: true });
  return async (name, nodes, extra = {}) =>
    (await pipelines.create({ actor: author.principal, workspaceId }, {
      name,
      body: pipelineBody({ name, nodes, ...extra }) as JsonObject,
      attrs: {},
    })).entity.id;
}

/**
 * A one-node read of its `team` parameter from tempdb, saved as `name` in `ctx`'s workspace
 * through the server's lifecycle and released unless `draft`: what an endpoint can publish.
 */
export async function teamPipeline(
  s: Pick<TestServer, "runtime"> | { runtime: Pick<TestServer["runtime"], "pipelines"> },
  ctx: { actor: Principal; workspaceId: string },
  name: string,
  draft = false,
): Promise<string> {
  const life = s.runtime.pipelines.lifecycle;
  const saved = await life.create(ctx, {
    name,
    body: pipelineBody({
      name,
      parameters: { team: { type: "string" } },
      nodes: [dql("read", { source: "tempdb", sql: "SELECT :team AS team" })],
    }) as JsonObject,
    attrs: {},
  });
  if (!draft) await life.release(ctx, saved.entity.id, saved.version.body_hash);
  return saved.entity.id;
}
