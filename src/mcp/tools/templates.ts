/**
 * templates_*: the template service as `/api/v1/templates` reaches it
 * (docs/authoring.md#authoring-templates), in the key's pinned workspace. A template is addressed
 * by `id`, as its record and the written bodies name it, in every tool
 * (docs/decisions.md#one-name-per-identifier); writes go to the draft and only a release (a
 * promoter's act, not a tool) makes content servable. `if_match` carries what REST sends as the
 * `If-Match` header: the body_hash of the version the write is based on.
 */
import { z } from "zod";
import {
  createTemplateSchema,
  renderedSqlView,
  TEMPLATE_DIALECTS,
  TEMPLATE_TYPES,
  templatePinnerView,
  templateRowView,
  templateView,
  updateTemplateSchema,
} from "../../templates/mod.ts";
import type { OpContext } from "../../versions/mod.ts";
import { CREATE, defineTool, OVERWRITE, READ, REMOVE, type ToolContext } from "../tool.ts";
import { listPage, pageArgs, pagedOutput } from "../paging.ts";

const NAME_MAX = 1000;
const id = z.string().min(1).max(NAME_MAX).describe(
  "The template's id (its name, a folder path), as templates_list gives it, e.g. shop/orders",
);
const ifMatch = z.string().min(1).max(200).describe(
  "The body_hash of the version this write is based on (the draft's, else the current " +
    "release's), as templates_get answers it; REST's If-Match header",
);
const version = z.int().min(1).optional();
const dialects = TEMPLATE_DIALECTS as unknown as [string, ...string[]];

const op = (ctx: ToolContext): OpContext => ({ actor: ctx.actor, workspaceId: ctx.workspace.id });

export const tools = [
  defineTool({
    name: "templates_list",
    title: "List templates",
    description:
      "Lists the workspace's templates, paged and ordered by name, each with its working " +
      "version (the draft, else the current release). Filter by `dialect`, `type` or a text `q`. " +
      "Read one with templates_get.",
    floor: "read",
    input: z.strictObject({
      dialect: z.enum(dialects).optional().describe("Only sql templates of this dialect"),
      type: z.enum(TEMPLATE_TYPES).optional().describe("Only templates of this type"),
      q: z.string().max(200).optional().describe("Matches names and display names"),
      ...pageArgs,
    }),
    output: pagedOutput(templateRowView),
    annotations: READ,
    handler: (s, ctx, args) => {
      const filter = {
        dialect: args.dialect as (typeof TEMPLATE_DIALECTS)[number] | undefined,
        type: args.type,
        q: args.q || undefined,
      };
      return listPage(s, args, (page) => s.content.templates.list(ctx.workspace.id, filter, page));
    },
  }),
  defineTool({
    name: "templates_get",
    title: "Read a template",
    description:
      "Returns one template: its working version (the draft, else the current release), or " +
      "the given `version`. The answer's body_hash is what templates_update and " +
      "templates_purge_draft take as `if_match`.",
    floor: "read",
    input: z.strictObject({
      id,
      version: version.describe("An exact version; absent: the draft, else the current release"),
    }),
    output: templateView,
    annotations: READ,
    handler: (s, ctx, args) =>
      args.version === undefined
        ? s.content.templates.get(ctx.workspace.id, args.id)
        : s.content.templates.getVersion(ctx.workspace.id, args.id, args.version),
  }),
  defineTool({
    name: "templates_used_by",
    title: "What pins a template",
    description:
      "Lists every stored pipeline version (through a node's template) and template version " +
      "(through an import) that pins this template, at `version` or at any version; pipelines " +
      "first. Check it before changing what others depend on.",
    floor: "read",
    input: z.strictObject({
      id,
      version: version.describe("Only what pins this version; absent: any version"),
    }),
    output: z.object({ used_by: z.array(templatePinnerView) }),
    annotations: READ,
    handler: async (s, ctx, args) => ({
      used_by: await s.content.templates.usedBy(ctx.workspace.id, args.id, args.version),
    }),
  }),
  defineTool({
    name: "templates_create",
    title: "Create a template",
    description:
      "Creates a template at DRAFT version 1 (`id` is its name; generated under test/ when " +
      "omitted). A draft is not served: releasing is a person's act (a promoter, in the UI or " +
      "over REST), not a tool's. `type` is sql (with a `dialect`) or html; `imports` pin other " +
      "templates' versions under an alias. A sql body that does not parse is refused " +
      "(template.render.syntax_error) and nothing is written.",
    floor: "write",
    input: createTemplateSchema.strict(),
    output: templateView,
    annotations: CREATE,
    handler: (s, ctx, args) => s.content.templates.create(op(ctx), args),
  }),
  defineTool({
    name: "templates_update",
    title: "Save a template draft",
    description:
      "Saves the template's full content (`id`, `display_name`, `body`, `imports`, …) as its " +
      "draft, against `if_match` (the body_hash templates_get gave). Content identical to the " +
      "current release answers that release unchanged. A stale hash is " +
      "template.version.conflict: read again and retry.",
    floor: "write",
    input: updateTemplateSchema.extend({ if_match: ifMatch }).strict(),
    output: templateView,
    annotations: OVERWRITE,
    handler: (s, ctx, { if_match, ...body }) => s.content.templates.update(op(ctx), if_match, body),
  }),
  defineTool({
    name: "templates_render",
    title: "Render a SQL template",
    description: "Renders a sql template version (the working one when `version` is absent) with " +
      "`context` values: answers the SQL with its bind placeholders and the imports it used. " +
      "Values never enter the SQL text; they become placeholders.",
    floor: "write",
    input: z.strictObject({
      id,
      version: version.describe("An exact version; absent: the working one"),
      context: z.record(z.string(), z.unknown()).optional().describe(
        'Parameter values the template reads as `params`, e.g. `{"region": "EU"}`; they steer ' +
          "control flow and become placeholders, never SQL text",
      ),
    }),
    output: renderedSqlView,
    annotations: READ,
    handler: (s, ctx, { id, ...args }) =>
      s.content.templates.render(ctx.workspace.id, { name: id, ...args }),
  }),
  defineTool({
    name: "templates_purge_draft",
    title: "Discard a template draft",
    description:
      "Deletes the template's draft whose body_hash is `if_match`; a template whose only " +
      "version is that draft goes with it. Refused while something pins the draft " +
      "(template.in_use).",
    floor: "write",
    input: z.strictObject({ id, if_match: ifMatch }),
    output: z.object({ id: z.string(), purged: z.literal(true) }),
    annotations: REMOVE,
    handler: async (s, ctx, args) => {
      await s.content.templates.purgeDraft(op(ctx), args.id, args.if_match);
      return { id: args.id, purged: true as const };
    },
  }),
];
