/**
 * docs_list, docs_get: the product documentation pages (src/docs), the source the UI serves, plus
 * the agents' guide `skill` (`/skill.md`), generated from the catalogue the tools belong to — which
 * is why this group is made by a function the catalogue calls with itself.
 */
import { z } from "zod";
import { type DocPage, type DocSummary, getDoc, listDocs } from "../../docs/mod.ts";
import { SKILL_ID, SKILL_TITLE, skillMarkdown } from "../skill.ts";
import { defineTool, READ, type ToolDef } from "../tool.ts";

const summary = z.object({ id: z.string(), title: z.string() });

/** Every page: the guide first, then docs/ by id. */
export async function allDocs(): Promise<DocSummary[]> {
  return [{ id: SKILL_ID, title: SKILL_TITLE }, ...await listDocs()];
}

/** One page by id; the guide names `origin` as where the service answers. */
export async function oneDoc(
  id: string,
  catalogue: readonly ToolDef[],
  origin: string,
): Promise<DocPage> {
  if (id === SKILL_ID) {
    return {
      id,
      title: SKILL_TITLE,
      markdown: skillMarkdown(catalogue, origin, await listDocs()),
    };
  }
  return await getDoc(id);
}

/** The two tools, for the catalogue `catalogue()` answers once it is built. */
export function docsTools(catalogue: () => readonly ToolDef[]): ToolDef[] {
  return [
    defineTool({
      name: "docs_list",
      title: "List documentation pages",
      description:
        "Lists the product documentation pages (id and title). Read one with docs_get. Start " +
        "with `skill` (the guide to these tools) and `agent-authoring` (pipeline and template " +
        "shapes by example); `executions` covers runs and results, `mcp` these tools. Each page " +
        "is also the resource docs://<id>.",
      floor: "read_instance",
      workspaceFree: true,
      input: z.strictObject({}),
      output: z.object({ items: z.array(summary) }),
      annotations: READ,
      handler: async () => ({ items: await allDocs() }),
    }),
    defineTool({
      name: "docs_get",
      title: "Read a documentation page",
      description:
        "Returns one documentation page as Markdown, by the id docs_list gives (`skill` is the " +
        "guide to these tools). An unknown id is `docs.not_found`.",
      floor: "read_instance",
      workspaceFree: true,
      input: z.strictObject({
        id: z.string().max(64).describe("Page id from docs_list, e.g. `skill` or `authoring`"),
      }),
      output: summary.extend({ markdown: z.string() }),
      annotations: READ,
      handler: async (s, _ctx, args) => await oneDoc(args.id, catalogue(), s.platform.origin()),
    }),
  ];
}
