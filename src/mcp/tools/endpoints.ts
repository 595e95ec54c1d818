/**
 * endpoints_*: published endpoints (docs/endpoints.md) as `/api/v1/endpoints` manages them, in the
 * key's pinned workspace, addressed by `path_pattern`. Publishing needs a released,
 * side-effect-free pipeline; bindings stay with REST.
 */
import { z } from "zod";
import { type EndpointContext, endpointView } from "../../endpoints/mod.ts";
import { CREATE, defineTool, READ, REMOVE, type ToolContext } from "../tool.ts";
import { listPage, pageArgs, pagedOutput } from "../paging.ts";

const path = z.string().min(1).max(300).describe("The endpoint's path_pattern, e.g. /shop/{id}");
const ctxOf = (ctx: ToolContext): EndpointContext => ({
  actor: ctx.actor,
  workspaceId: ctx.workspace.id,
});

export const tools = [
  defineTool({
    name: "endpoints_list",
    title: "List published endpoints",
    description:
      "Lists the workspace's published endpoints (GET /api/x/<path>), paged by pattern, each " +
      "with its pipeline, timeout, state and key bindings.",
    floor: "read",
    input: z.strictObject({ ...pageArgs }),
    output: pagedOutput(endpointView),
    annotations: READ,
    handler: (s, ctx, args) =>
      listPage(s, args, (page) => s.publishing.endpoints.list(ctxOf(ctx), page)),
  }),
  defineTool({
    name: "endpoints_get",
    title: "Read a published endpoint",
    description: "Returns one published endpoint of the workspace by its `path_pattern`.",
    floor: "read",
    input: z.strictObject({ path_pattern: path }),
    output: endpointView,
    annotations: READ,
    handler: (s, ctx, args) => s.publishing.endpoints.get(ctxOf(ctx), args.path_pattern),
  }),
  defineTool({
    name: "endpoints_create",
    title: "Publish a pipeline as an endpoint",
    description:
      "Publishes the latest released version of a read-only pipeline under `path_pattern` " +
      "(literal segments and {variables}, each variable a parameter the pipeline declares). " +
      "The endpoint serves GET /api/x/<path> to keys allowed there. A pipeline with no " +
      "release is endpoint.pipeline_not_released: releasing is a person's act (a promoter, in " +
      "the UI or over REST), and no tool releases, so ask one. A pipeline that writes is " +
      "endpoint.pipeline_not_readonly.",
    floor: "write",
    input: z.strictObject({
      path_pattern: path,
      pipeline_id: z.string().min(1).max(200).describe("The released pipeline's id"),
      timeout_seconds: z.int().optional().describe(
        "Seconds a call may run; clamped to service.endpoints.timeout-min/max-seconds (1-300)",
      ),
      description: z.string().max(2000).nullable().optional().describe(
        "What the endpoint answers, for its callers",
      ),
      enabled: z.boolean().optional().describe("false publishes it switched off (default true)"),
    }),
    output: endpointView,
    annotations: CREATE,
    handler: (s, ctx, args) => s.publishing.endpoints.publish(ctxOf(ctx), args),
  }),
  defineTool({
    name: "endpoints_delete",
    title: "Unpublish an endpoint",
    description:
      "Removes a published endpoint by its `path_pattern`; its URL answers 404 at once on " +
      "every instance. The pipeline is untouched.",
    floor: "write",
    input: z.strictObject({ path_pattern: path }),
    output: z.object({ path_pattern: z.string(), deleted: z.literal(true) }),
    // A second delete of the same path is endpoint.not_found.
    annotations: REMOVE,
    handler: async (s, ctx, args) => {
      await s.publishing.endpoints.unpublish(ctxOf(ctx), args.path_pattern);
      return { path_pattern: args.path_pattern, deleted: true as const };
    },
  }),
];
