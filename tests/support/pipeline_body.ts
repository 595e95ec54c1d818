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

/** Who saves: the author's principal in a workspace. */
export type SaveContext = { actor: Principal; workspaceId: string };

/**
 * A pipeline `name` of these body fields (`nodes`, `parameters`, …), saved in `ctx`'s workspace
 * through the runtime's lifecycle (no HTTP) and released unless `draft`; answers its id.
 */
export async function releasedPipeline(
  runtime: Pick<TestServer["runtime"], "pipelines">,
  ctx: SaveContext,
  name: string,
  fields: { nodes: unknown[]; [field: string]: unknown },
  draft = false,
): Promise<string> {
  const life = runtime.pipelines.lifecycle;
  const body = pipelineBody({ name, ...fields }) as JsonObject;
  const saved = await life.create(ctx, { name, body, attrs: {} });
  if (!draft) await life.release(ctx, saved.entity.id, saved.version.body_hash);
  return saved.entity.id;
}

/**
 * A one-node read of its `team` parameter from tempdb, released unless `draft`: what an endpoint
 * can publish.
 */
export function teamPipeline(
  s: { runtime: Pick<TestServer["runtime"], "pipelines"> },
  ctx: SaveContext,
  name: string,
  draft = false,
): Promise<string> {
  return releasedPipeline(s.runtime, ctx, name, {
    parameters: { team: { type: "string" } },
    nodes: [dql("read", { source: "tempdb", sql: "SELECT :team AS team" })],
  }, draft);
}

/**
 * A released one-node copy into the tempdb datasource's `copy` table: a pipeline with a side
 * effect, which an endpoint refuses to publish.
 */
export function writerPipeline(
  s: { runtime: Pick<TestServer["runtime"], "pipelines"> },
  ctx: SaveContext,
  name: string,
): Promise<string> {
  return releasedPipeline(s.runtime, ctx, name, {
    nodes: [dql("copy", {
      source: "tempdb",
      sql: "SELECT 1 AS one",
      output: { target: "datasource", datasource: "tempdb", table: "copy" },
    })],
  });
}
