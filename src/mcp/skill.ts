/**
 * `/skill.md` (public, docs/mcp.md#guidance-for-agents): a short guide for agents, generated from
 * the tool catalogue so it never drifts from `tools/list`: how to connect, the first calls, the
 * draft → release gate, how results are paged and how long they live, what a refusal looks like,
 * then every tool by group with what it does, whether it changes anything, and the key scope and
 * role it needs. The same text is `docs_get {"id": "skill"}` and the resource `docs://skill`.
 */
import type { DocSummary } from "../docs/mod.ts";
import { OPERATIONS } from "../identity/mod.ts";
import { FLOORS, type ToolDef } from "./tool.ts";

/** The guide's id among the docs pages (`docs_get`, `docs://skill`) and its title. */
export const SKILL_ID = "skill";
export const SKILL_TITLE = "Pipeline service: a guide for agents";

/** The first sentence of a description: the line a tool gets in the list. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}

function effect(tool: ToolDef): string {
  const a = tool.annotations;
  if (a.readOnlyHint) return "read-only";
  return a.destructiveHint ? "changes or removes" : "writes";
}

function floorOf(tool: ToolDef): string {
  const rule = OPERATIONS[FLOORS[tool.floor]];
  return `${rule.scope} scope, ${rule.role} role`;
}

/**
 * The guide for `tools`, naming `origin` as where the service answers, with the documentation
 * pages `docs` as Markdown links (`/skill/{id}`, the same pages as `/docs/{id}`).
 */
export function skillMarkdown(
  tools: readonly ToolDef[],
  origin: string,
  docs: readonly DocSummary[],
): string {
  const groups = new Map<string, ToolDef[]>();
  for (const tool of tools) {
    // A group is the name's first word (`lake_tables` is two).
    const group = tool.name.startsWith("lake_tables_") ? "lake_tables" : tool.name.split("_")[0];
    groups.set(group, [...(groups.get(group) ?? []), tool]);
  }
  const lines = [
    `# ${SKILL_TITLE}`,
    "",
    "A self-hosted data pipeline service: datasources, versioned SQL templates and pipelines (DAGs",
    "of read and stage nodes), runs with paged results, and released pipelines published as GET",
    "APIs. You work it through its tools.",
    "",
    "## Connect",
    "",
    `- Endpoint: \`POST ${origin}/mcp\`, MCP Streamable HTTP, revisions 2025-11-25 and 2026-07-28.`,
    "- Credential: a user API key, `Authorization: Bearer <key>` or `SVC-API-Key: <key>`. Its",
    "  scope (read, execute, author) and its owner's role in the workspace bound what you may do.",
    "- Everything happens in the key's pinned workspace; you never see another workspace's content.",
    "",
    "## First calls",
    "",
    "1. `docs_list`, then `docs_get` with `agent-authoring`: the node shapes by example.",
    "2. `datasources_list`, then `datasources_get_tables` and `datasources_get_columns` on one.",
    "3. `sql_probe` to try a read statement; `pipelines_list` to see what exists already.",
    "",
    "Every docs page is also an MCP resource (`docs://<id>`, this guide `docs://skill`).",
    "",
    "## Arguments",
    "",
    "Each tool's `inputSchema` is exact: an argument it does not name is refused with",
    "`pipeline.execution.invalid_parameter_type`, `details.field` = the argument you sent and",
    "`details.suggestion` the one you probably meant. Names follow the REST API's fields.",
    "",
    "## Draft → release",
    "",
    "Creating or updating a pipeline or template writes its DRAFT version. Running a pipeline",
    "without `version` runs its working version: the draft when one exists, else the current",
    "release. Published endpoints serve only releases, and releasing is a person's act (a",
    "promoter, in the UI or over REST), not a tool. Updates take `if_match`, the `body_hash` you",
    "last read; a stale hash is refused with a conflict code, so read again and retry. Check",
    "`templates_used_by` before changing what others pin.",
    "",
    "## Rows and paging",
    "",
    "Tools that return rows answer `{columns, rows, row_count, truncated, next_cursor, elapsed_ms}`,",
    "capped in rows and in characters. `truncated: true` means something was left out; pass",
    "`next_cursor` as `cursor` to `executions_get_result` for the next page of a stored result",
    "(`limit` or the run's `page_rows` sets the rows per page, up to the instance's cap). A value",
    "too long for a page is shortened and listed in `cut_cells`, whose `cursor` reads the rest in",
    "slices. A result is kept 300 s by default (`result_ttl_seconds` on the run, up to the",
    "instance's maximum); after that it answers `result.expired` and the pipeline must run again.",
    "`sql_probe` pages the same way with its own `cursor`; previews are not paged (narrow the",
    "SQL). Lists take `offset` and `limit` and answer",
    "`{items, pagination: {offset, limit, total, has_more}}`.",
    "",
    "## Refusals",
    "",
    "A refused call is a result with `isError: true` and `structuredContent.error = {code, message,",
    "details}`, the same codes as the REST API. Read `details` (and `details.hint`, when there is",
    "one) before retrying. A failed run is not a refusal: its record says `FAILED`, and its",
    "`error.code` and `error.message` say why.",
    "",
    `## Tools (${tools.length})`,
  ];
  for (const [group, members] of groups) {
    lines.push("", `### ${group}`, "");
    for (const tool of members) {
      lines.push(
        `- \`${tool.name}\`: ${firstSentence(tool.description)} _(${effect(tool)}; ${
          floorOf(tool)
        })_`,
      );
    }
  }
  lines.push(
    "",
    "Each tool's full description and its input and output schemas come with `tools/list`.",
    "",
    `## Documentation (${docs.length})`,
    "",
    "Every page as Markdown, without a key (the same as `docs_get` with its id):",
    "",
    ...docs.map((d) => `- [${d.title}](${origin}/skill/${d.id}) \`${d.id}\``),
    "",
  );
  return lines.join("\n");
}
