/**
 * The pipeline editor's form view in a real browser: parameters and nodes authored as fields and
 * kept in step with the JSON both ways, rows added and removed in place, a refused save placed on
 * the field it names; and the same form read and saved with JavaScript off.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { eventually } from "../support/wait.ts";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  fillEditor,
  newUserPage,
} from "../support/browser.ts";

/** The JSON editor's text, parsed (the textarea stays in step with CodeMirror). */
async function specOf(page: Page) {
  return JSON.parse(await page.locator("#p-spec").inputValue());
}

/**
 * Waits until the JSON editor's text satisfies `test`, polling from the test side (the page's
 * Content-Security-Policy refuses the eval a page-side predicate needs), within playwright's own
 * default wait of 30 s.
 */
// deno-lint-ignore no-explicit-any
async function jsonWhere(page: Page, test: (spec: any) => boolean) {
  let spec: unknown = null;
  await eventually(async () => (spec = await specOf(page).catch(() => null)) && test(spec), {
    ms: 30_000,
    intervalMs: 100,
  }).catch(() => {
    throw new Error(`the JSON never matched ${test}: ${JSON.stringify(spec)}`);
  });
}

demoBrowserTest(
  "an author builds a pipeline in the form; the JSON follows and leads",
  async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "author@example.com", true);
    await page.goto(`${server.url}/pipelines/new`);
    equal(await page.locator("#tab-form").getAttribute("aria-selected"), "true");
    await accessibleInBothThemes(page, "new pipeline, form");
    await page.fill("#p-name", "team/form_built");
    await page.fill("#p-display", "Built in the form");

    // A parameter, typed: its default lands in the JSON as a number.
    await page.click("button:has-text('Add parameter')");
    await page.locator("#p-0-name").waitFor();
    await page.fill("#p-0-name", "factor");
    await page.selectOption("#p-0-type", "integer");
    await page.fill("#p-0-default", "3");
    await jsonWhere(page, (spec) => spec.parameters.factor?.default === 3);
    equal((await specOf(page)).parameters.factor.type, "integer");

    // The node's SQL, typed in its own code editor.
    await fillEditor(page, "n-0-sql", "SELECT size * :factor AS scaled FROM seed");
    await jsonWhere(page, (spec) => spec.nodes[0].sql.includes("scaled"));

    // A second node staging a table, which the first depends on; renaming it renames the chip.
    await page.click("button:has-text('Add node')");
    await page.locator("#n-1-id").waitFor();
    ok(await page.locator("#n-1-table").isHidden(), "a caller output takes no table");
    await page.selectOption("#n-1-target", "tempdb");
    await page.fill("#n-1-table", "seed");
    await fillEditor(page, "n-1-sql", "SELECT * FROM (VALUES (1), (2)) AS t(size)");
    // A type shows its own fields; the others leave the spec while hidden, and come back.
    await page.selectOption("#n-1-type", "PIPELINE");
    ok(await page.locator("#n-1-source").isHidden());
    ok(await page.locator("#n-1-pipeline_id").isVisible());
    await jsonWhere(page, (spec) => spec.nodes[1].type === "PIPELINE" && !spec.nodes[1].source);
    await page.selectOption("#n-1-type", "DQL");
    await jsonWhere(
      page,
      (spec) => spec.nodes[1].source === "tempdb" && spec.nodes[1].sql.includes("VALUES"),
    );
    await page.fill("#n-1-id", "seed");
    await page.locator("[data-dep-label='1']:has-text('seed')").waitFor();
    await page.check("input[name='n.0.dep.1']");
    await jsonWhere(page, (spec) => spec.nodes[0].depends_on?.[0] === "seed");
    deepEqual((await specOf(page)).nodes[1].output, { target: "tempdb", table: "seed" });

    // The JSON leads too: a description typed there shows in the form.
    await page.click("#tab-json");
    await accessibleInBothThemes(page, "new pipeline, JSON");
    const spec = await specOf(page);
    spec.parameters.factor.description = "How much bigger";
    await fillEditor(page, "p-spec", JSON.stringify(spec, null, 2));
    await page.click("#tab-form");
    await page.waitForFunction(() =>
      (document.querySelector("#p-0-description") as HTMLInputElement | null)?.value ===
        "How much bigger"
    );

    await page.click("button:has-text('Create draft')");
    await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
    const pipelineUrl = page.url().replace(/\?.*$/, "");
    equal(await page.locator(".dag-node").count(), 2);

    // A default the type refuses: the error sits under that field, the form open on it.
    await page.goto(`${pipelineUrl}/edit`);
    await page.fill("#p-0-default", "lots");
    await page.click("button:has-text('Save draft')");
    await page.locator("#p-0-default-error").waitFor();
    // The address bar stays on the editor's own page: a reload opens it, never re-posts.
    equal(new URL(page.url()).pathname, `${new URL(pipelineUrl).pathname}/edit`);
    // It says what is wrong with it, not only that something is.
    match(await page.locator("#p-0-default-error").textContent() ?? "", /integer/i);
    equal(await page.locator("#p-0-default").getAttribute("aria-invalid"), "true");
    match(await page.locator("#p-0-default").getAttribute("aria-describedby") ?? "", /error/);
    equal(await page.locator("#tab-form").getAttribute("aria-selected"), "true");
    equal(await page.locator("#p-spec").getAttribute("aria-invalid"), "true");
    await accessibleInBothThemes(page, "refused save");

    // Removing the staged node also drops the dependency on it; then the fixed save goes through.
    await page.click("button[aria-label='Remove node seed']");
    await page.locator("#n-1-id").waitFor({ state: "detached" });
    await jsonWhere(page, (spec) => spec.nodes.length === 1 && !spec.nodes[0].depends_on);
    await fillEditor(page, "n-0-sql", "SELECT 2 * :factor AS scaled");
    await page.fill("#p-0-default", "4");
    await jsonWhere(page, (spec) => spec.parameters.factor.default === 4);
    await page.click("button:has-text('Save draft')");
    await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
    equal(await page.locator(".dag-node").count(), 1);

    // JSON that does not parse is refused as such, with the line and column it stopped at.
    await page.goto(`${pipelineUrl}/edit`);
    await page.click("#tab-json");
    await fillEditor(page, "p-spec", '{\n  "nodes": [\n    {"id": "x",}\n  ]\n}');
    await page.click("button:has-text('Save draft')");
    const refusal = page.locator("text=pipeline.validation.malformed_json");
    await refusal.waitFor();
    match(await page.locator("main").textContent() ?? "", /line 3, column 16/i);
    equal(new URL(page.url()).pathname, `${new URL(pipelineUrl).pathname}/edit`);

    // The refused save answered 400 on purpose (the browser logs that too); nothing else failed.
    deepEqual(
      problems.filter((p) => !/^400 POST .*\/save$|status of 400 \(Bad Request\)$/.test(p)),
      [],
    );
    equal(problems.length, 4);
  },
);

demoBrowserTest(
  "without JavaScript the form reads, adds a row and saves; a viewer gets no redraw",
  async (server, browser) => {
    const scripted = (await newUserPage(server, browser, "author@example.com", true)).page;
    const context = await browser.newContext({
      javaScriptEnabled: false,
      storageState: await scripted.context().storageState(),
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/pipelines/new`);
    // Both views show, one under the other; the tabs need the script.
    ok(await page.locator("#panel-form").isVisible());
    ok(await page.locator("#p-spec").isVisible());
    ok(await page.locator("[role=tablist]").isHidden());
    await page.fill("#p-name", "team/no_script");
    await page.click("button:has-text('Add parameter')");
    await page.fill("#p-0-name", "region");
    await page.fill("#p-0-default", "eu");
    await page.fill("#p-0-description", "Where");
    await page.click("button:has-text('Create draft')");
    await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
    const pipelineUrl = page.url().replace(/\?.*$/, "");
    await page.goto(`${pipelineUrl}/edit`);
    equal(await page.locator("#p-0-name").inputValue(), "region");
    equal(await page.locator("#p-0-default").inputValue(), "eu");
    equal(await page.locator("#n-0-id").inputValue(), "result");
    // A JSON edit alone is taken too: the form was left as drawn.
    const spec = JSON.parse(await page.locator("#p-spec").inputValue());
    spec.settings = { max_parallel_nodes: 2 };
    await page.fill("#p-spec", JSON.stringify(spec));
    await page.click("button:has-text('Save draft')");
    await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
    await page.goto(`${pipelineUrl}/edit`);
    equal(await page.locator("#s-max_parallel_nodes").inputValue(), "2");
    equal(await page.locator("#p-0-description").inputValue(), "Where");

    // The form's redraw partial is an authoring one: a viewer is refused as REST would refuse.
    const looker = (await newUserPage(server, browser, "looker@example.com")).page;
    const csrf = (await looker.context().cookies()).find((c) => c.name === "svc_csrf")!.value;
    const status = await looker.evaluate(
      async (token) =>
        (await fetch("/partials/pipelines/editor/form", {
          method: "POST",
          headers: {
            "SVC-CSRF-Token": token,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "from=json&spec=%7B%22nodes%22%3A%5B%5D%7D",
        })).status,
      csrf,
    );
    equal(status, 403);
  },
);
