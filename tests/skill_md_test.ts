/**
 * `/skill.md`: the public guide for agents (spec 1 §5.9), generated from the tool catalogue. It is
 * served without a credential as Markdown, names where `/mcp` answers, explains the draft →
 * release gate and paging, and lists exactly the tools `tools/list` gives, each with its effect
 * and its floor.
 */
import { equal, ok } from "node:assert/strict";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { withTestServer } from "./support/harness.ts";
import { connect, keyHeaders } from "./support/mcp_client.ts";

Deno.test("/skill.md is public Markdown listing every tool of tools/list", async () => {
  await withTestServer({}, async (s) => {
    const res = await s.fetch("/skill.md");
    equal(res.status, 200);
    equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
    const md = await res.text();
    ok(md.startsWith("# Pipeline service: a guide for agents\n"), md.slice(0, 80));
    ok(md.includes(`\`POST ${s.url}/mcp\``), "names where the tools answer");
    for (
      const heading of ["## Connect", "## Draft → release", "## Rows and paging", "## Refusals"]
    ) {
      ok(md.includes(`\n${heading}\n`), heading);
    }
    ok(md.includes("`next_cursor` as `cursor` to `executions_get_result`"));

    // The same tools as tools/list, in its order, each with what it does and needs.
    const f = await seedRoles(s.runtime);
    const client = await connect(
      s,
      "2026-07-28",
      keyHeaders(await userKey(s.runtime, f.users.author, f.workspace.id, ["read"])),
    );
    try {
      const { tools } = await client.client.listTools();
      equal(tools.length, 41);
      const listed = [...md.matchAll(/^- `([a-z_]+)`: (.*)$/gm)];
      equal(listed.length, tools.length);
      ok(md.includes(`## Tools (${tools.length})`));
      tools.forEach((tool, i) => {
        const [, name, line] = listed[i];
        equal(name, tool.name);
        const effect = tool.annotations?.readOnlyHint
          ? "read-only"
          : tool.annotations?.destructiveHint
          ? "changes or removes"
          : "writes";
        ok(line.includes(`_(${effect}; `), `${name}: ${line}`);
        ok(line.length > 40, `${name} says what it does`);
      });
      ok(md.includes("- `sql_probe`: Runs one read statement"));
      ok(md.includes("(read-only; author scope, view role)_"));
      ok(md.includes("`datasources_test`: ") && md.includes("author scope, ws_admin role"));
    } finally {
      await client.close();
    }
  });
});
