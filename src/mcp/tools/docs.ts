/** docs_list, docs_get: the product documentation pages (src/docs), the source the UI serves. */
import { z } from "zod";
import { getDoc, listDocs } from "../../docs/mod.ts";
import { defineTool, READ } from "../tool.ts";

const summary = z.object({ id: z.string(), title: z.string() });

export const tools = [
  defineTool({
    name: "docs_list",
    title: "List documentation pages",
    description:
      "Lists the product documentation pages (id and title). Read one with docs_get. Start with " +
      "`authoring` to learn how pipelines and templates are written, `executions` for runs and " +
      "results, `mcp` for how these tools behave.",
    floor: "read_instance",
    workspaceFree: true,
    input: z.object({}),
    output: z.object({ items: z.array(summary) }),
    annotations: READ,
    handler: async () => ({ items: await listDocs() }),
  }),
  defineTool({
    name: "docs_get",
    title: "Read a documentation page",
    description:
      "Returns one documentation page as Markdown, by the id docs_list gives. An unknown id is " +
      "`docs.not_found`.",
    floor: "read_instance",
    workspaceFree: true,
    input: z.object({ id: z.string().max(64).describe("Page id from docs_list") }),
    output: summary.extend({ markdown: z.string() }),
    annotations: READ,
    handler: async (_s, _ctx, args) => await getDoc(args.id),
  }),
];
