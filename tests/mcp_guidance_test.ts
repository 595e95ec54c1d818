/**
 * Guidance over MCP (docs/mcp.md#guidance-for-agents), with the official SDK client on both
 * revisions: the instructions name the guide, docs_list and the first calls; the guide
 * (`/skill.md`) is `docs_get {"id": "skill"}` and the resource `docs://skill`; every docs page is
 * a resource; an unknown one is -32602 with `data.uri`; the two prompts answer messages naming
 * the calls to make.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { listDocs } from "../src/docs/mod.ts";
import { ERAS, type Json, withAuthorClient } from "./support/mcp_client.ts";

for (const era of ERAS) {
  Deno.test(`[${era}] the guide and every docs page reach an agent as tools and as resources`, () =>
    withAuthorClient({}, era, async (c, s) => {
      const instructions = c.client.getInstructions() ?? "";
      for (
        const named of ["docs_get", '"skill"', "docs_list", "datasources_list", "docs://skill"]
      ) {
        ok(instructions.includes(named), `the instructions name ${named}`);
      }

      const skill = await (await s.fetch("/skill.md")).text();
      const viaTool = await c.call("docs_get", { id: "skill" });
      deepEqual([viaTool.id, viaTool.markdown], ["skill", skill]);
      ok(skill.includes("## First calls") && skill.includes("runs its working version"));
      const listed = await c.call("docs_list");
      equal(listed.items[0].id, "skill");
      const pages = (await listDocs()).map((d) => d.id);
      deepEqual(listed.items.slice(1).map((d: Json) => d.id), pages);
      ok(pages.includes("agent-authoring"));

      const { resources } = await c.client.listResources();
      deepEqual(resources.map((r) => r.uri), ["skill", ...pages].map((id) => `docs://${id}`));
      ok(resources.every((r) => r.mimeType === "text/markdown" && r.name && r.description));
      const read = await c.client.readResource({ uri: "docs://skill" });
      deepEqual(read.contents, [{ uri: "docs://skill", mimeType: "text/markdown", text: skill }]);
      const authoring = await c.client.readResource({ uri: "docs://agent-authoring" });
      const page = await c.call("docs_get", { id: "agent-authoring" });
      equal((authoring.contents[0] as Json).text, page.markdown);
      ok(page.markdown.includes('"type": "CALCULATOR"'), "node shapes by example");

      const missing = await c.client.readResource({ uri: "docs://no-such-page" }).then(
        () => null,
        (e) => e,
      );
      ok(missing, "an unknown page must not be read");
      deepEqual([missing.code, missing.data?.uri], [-32602, "docs://no-such-page"]);
      equal((await c.refusal("docs_get", { id: "no-such-page" })).code, "docs.not_found");
    }));

  Deno.test(`[${era}] the prompts start the common tasks with the calls to make`, () =>
    withAuthorClient({}, era, async (c) => {
      const { prompts } = await c.client.listPrompts();
      deepEqual(prompts.map((p) => [p.name, p.arguments?.map((a) => a.name)]), [
        ["explore_datasource", ["datasource"]],
        ["author_pipeline", ["goal"]],
      ]);
      const explore = await c.client.getPrompt({
        name: "explore_datasource",
        arguments: { datasource: "shop" },
      });
      const text = (explore.messages[0].content as { text: string }).text;
      for (const call of ['datasources_get {"name": "shop"}', "semantics_list", "sql_probe"]) {
        ok(text.includes(call), call);
      }
      const author = await c.client.getPrompt({
        name: "author_pipeline",
        arguments: { goal: "revenue by country" },
      });
      const steps = (author.messages[0].content as { text: string }).text;
      ok(steps.includes("revenue by country") && steps.includes("agent-authoring"));
    }));
}
