/**
 * Guidance over MCP itself (docs/mcp.md#guidance-for-agents): the `instructions` every client
 * gets at connection, every docs page and the agents' guide as resources `docs://<id>`
 * (`resources/list`, `resources/read`), and two prompts that start the common tasks. The pages
 * are the public `/docs` and `/skill.md`, so reading them needs no floor beyond the key the HTTP
 * steps already accepted; no call is audited, as no tool runs.
 */
import {
  type McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { AppError } from "../errors/mod.ts";
import { SKILL_ID } from "./skill.ts";
import type { ToolDef } from "./tool.ts";
import { allDocs, oneDoc } from "./tools/docs.ts";

export const INSTRUCTIONS =
  "Tools of a data pipeline service; everything happens inside the workspace your API key is " +
  'pinned to. Start with three calls: docs_get {"id": "skill"} (the guide to these tools: ' +
  "drafts and releases, paging, result lifetimes, refusals; also the resource docs://skill), " +
  "datasources_list (what you can query), then pipelines_list (what exists already). docs_list " +
  "names every other page, e.g. agent-authoring for pipeline shapes by example. Arguments are " +
  "exactly those of each tool's inputSchema; an unknown one is refused and the nearest name " +
  "suggested. Rows come in pages capped in rows and characters: `truncated` says something was " +
  "left out, `next_cursor` fetches the next page. A refusal is a result with isError true and " +
  "structuredContent.error = {code, message, details}.";

const DOC_URI = "docs://{id}";

/** Registers the docs resources and the prompts on `server`; `catalogue` makes the guide. */
export function registerGuidance(
  server: McpServer,
  catalogue: readonly ToolDef[],
  origin: () => string,
): void {
  server.registerResource(
    "docs",
    new ResourceTemplate(DOC_URI, {
      list: async () => ({
        resources: (await allDocs()).map((d) => ({
          uri: `docs://${d.id}`,
          name: d.id,
          title: d.title,
          description: d.id === SKILL_ID
            ? "The guide to these tools for agents (/skill.md)"
            : `Documentation: ${d.title}`,
          mimeType: "text/markdown",
        })),
      }),
    }),
    {
      title: "Documentation pages",
      description: "The product's documentation and the agents' guide, as Markdown",
      mimeType: "text/markdown",
    },
    async (uri, variables) => {
      const id = String(variables.id);
      try {
        const page = await oneDoc(id, catalogue, origin());
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: page.markdown }] };
      } catch (e) {
        if (e instanceof AppError && e.code === "docs.not_found") {
          throw new ResourceNotFoundError(uri.href);
        }
        throw e;
      }
    },
  );

  userPrompt(server, "explore_datasource", {
    title: "Explore a datasource",
    description: "Learn a datasource's tables, columns and learned facts before writing SQL",
    arg: "datasource",
    argDescription: "The datasource's name, from datasources_list",
  }, (datasource) =>
    `Explore the datasource \`${datasource}\` before writing SQL for it. Call ` +
    `datasources_get {"name": "${datasource}"} and semantics_list {"datasource": ` +
    `"${datasource}"} (facts others learned: units, windows, definitions), then ` +
    `datasources_get_tables and datasources_get_columns on the tables that matter. ` +
    `Try statements with sql_probe {"datasource": "${datasource}", "sql": …}; it runs ` +
    "one read statement, bounded. Record what you learn with semantics_record.");

  userPrompt(server, "author_pipeline", {
    title: "Author a pipeline",
    description: "Write, try and run a pipeline that answers a question",
    arg: "goal",
    argDescription: "What the pipeline should answer",
  }, (goal) =>
    `Write a pipeline that answers: ${goal}\n\n` +
    'Read docs_get {"id": "agent-authoring"} for the body\'s shape by example. Find ' +
    "the data with datasources_list and datasources_get_columns, try each statement " +
    "with sql_probe, then pipelines_create (a draft) and pipelines_execute without " +
    "`version` (it runs the draft). Page the result with executions_get_result. " +
    "Releasing is a person's act: say what is ready for a promoter to release.");
}

/** A prompt of one string argument whose answer is one user message, `text` of that argument. */
function userPrompt(
  server: McpServer,
  name: string,
  p: { title: string; description: string; arg: string; argDescription: string },
  text: (value: string) => string,
): void {
  server.registerPrompt(
    name,
    {
      title: p.title,
      description: p.description,
      argsSchema: z.object({ [p.arg]: z.string().describe(p.argDescription) }),
    },
    (args: Record<string, string>) => ({
      messages: [{ role: "user", content: { type: "text", text: text(args[p.arg]) } }],
    }),
  );
}
