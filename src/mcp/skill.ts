/**
 * `/skill.md` (issue 15 item 5; public per spec 1 §5.9): a short guide for agents, generated from
 * the tool catalogue so it never drifts from `tools/list`: how to connect, the draft → release
 * gate, how results are paged, what a refusal looks like, then every tool by group with what it
 * does, whether it changes anything, and the key scope and role it needs.
 */
import { OPERATIONS } from "../identity/mod.ts";
import { FLOORS, type ToolDef } from "./tool.ts";

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

/** The guide for `tools`, naming `origin` as where the service answers. */
export function skillMarkdown(tools: readonly ToolDef[], origin: string): string {
  const groups = new Map<string, ToolDef[]>();
  for (const tool of tools) {
    // A group is the name's first word (`lake_tables` is two).
    const group = tool.name.startsWith("lake_tables_") ? "lake_tables" : tool.name.split("_")[0];
    groups.set(group, [...(groups.get(group) ?? []), tool]);
  }
  const lines = [
    "# Pipeline service: a guide for agents",
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
    "## Draft → release",
    "",
    "Creating or updating a pipeline or template writes its DRAFT version. A draft is never served:",
    "runs and published endpoints use the released version. Releasing is a promoter's act in the",
    "product, not a tool. Updates take `if_match`, the `body_hash` you last read; a stale hash is",
    "refused with a conflict code, so read again and retry. Check `templates_used_by` before",
    "changing what others pin.",
    "",
    "## Rows and paging",
    "",
    "Tools that return rows answer `{columns, rows, row_count, truncated, next_cursor, elapsed_ms}`,",
    "capped in rows and in characters. `truncated: true` means something was left out; pass",
    "`next_cursor` as `cursor` to `executions_get_result` for the next page of a stored result.",
    "Previews and probes are not stored (`next_cursor` is null): narrow the SQL instead. Lists take",
    "`offset` and `limit` and answer `{items, pagination: {offset, limit, total, has_more}}`.",
    "",
    "## Refusals",
    "",
    "A refused call is a result with `isError: true` and `structuredContent.error = {code, message,",
    "details}`, the same codes as the REST API. Read `details` before retrying.",
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
  );
  return lines.join("\n");
}
