/**
 * Authoring in a real browser: a new template, released; a new pipeline that pins it, released
 * and run to its result; a refused save placed on its field; and two authors saving the same
 * draft, the second shown what the first changed.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  accessibleInBothThemes,
  browserTest,
  confirmAct,
  fillEditor,
  newUserPage,
  runResultShown,
  withDemoBrowser,
} from "../support/browser.ts";
import type { TestServer } from "../support/harness.ts";
import { dql } from "../support/pipeline_body.ts";

type AuthorTest = (
  s: TestServer,
  browser: Browser,
  page: Page,
  problems: string[],
) => Promise<void>;

function withAuthor(fn: AuthorTest): Promise<void> {
  return withDemoBrowser(async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "author@example.com", true);
    await fn(server, browser, page, problems);
  });
}

/** Types `spec` into the pipeline editor's JSON view. */
function fillSpec(page: Page, spec: unknown): Promise<void> {
  return fillEditor(page, "p-spec", JSON.stringify(spec));
}

/** A spec of one DQL node `id` running `sql` on the temp database. */
function oneNode(id: string, sql: string, parameters?: Record<string, unknown>) {
  return { ...parameters ? { parameters } : {}, nodes: [dql(id, { source: "tempdb", sql })] };
}

browserTest(
  "an author writes a template, pins it in a new pipeline, releases both and runs it",
  () =>
    withAuthor(async (s, _b, page, problems) => {
      await page.goto(`${s.url}/templates`);
      await page.click("a:has-text('New template')");
      await page.fill("#t-id", "team/orders/sizes");
      await page.fill("#t-name", "Order sizes");
      await page.selectOption("#t-dialect", "DUCKDB");
      // The live preview renders unsaved text: a Liquid error first, then the good body.
      await fillEditor(page, "t-body", "SELECT 1 {% if %}");
      await page.locator("#preview .banner.error:has-text('template.render')").waitFor();
      await fillEditor(
        page,
        "t-body",
        "SELECT size, size * :factor AS scaled FROM (VALUES (1), (2), (3)) AS t(size) ORDER BY size",
      );
      await page.locator("#preview .preview-binds:has-text(':factor')").waitFor();
      await page.click("button:has-text('Create draft')");
      await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
      // The preview lists the placeholder the body binds.
      match(
        await page.locator("section:has(h2:has-text('Rendered')) header").textContent() ?? "",
        /:factor/,
      );
      await confirmAct(page, "a:has-text('Release v1')");
      await page.locator(".banner.ok:has-text('Released v1')").waitFor();

      await page.goto(`${s.url}/pipelines`);
      await page.click("a:has-text('New pipeline')");
      await page.fill("#p-name", "team/order_sizes");
      await page.fill("#p-display", "Order sizes");
      await fillSpec(page, {
        parameters: { factor: { type: "integer", default: 10 } },
        nodes: [
          dql("sizes", { source: "tempdb", template: { id: "team/orders/sizes", version: 1 } }),
        ],
      });
      await page.click("button:has-text('Create draft')");
      await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
      await confirmAct(page, "a:has-text('Release v1')");
      await page.locator(".banner.ok:has-text('Released v1')").waitFor();

      await page.click(".page-head a.btn.primary:has-text('Run')");
      await page.fill("input[name=factor]", "7");
      await page.click("button:has-text('Run pipeline')");
      await runResultShown(page, problems);
      deepEqual(
        await page.locator("#run-live .result-table tbody tr td:nth-child(2)").allTextContents(),
        ["7", "14", "21"],
      );
      deepEqual(problems, []);
    }),
);

browserTest(
  "a refused save keeps the text and places the error; a conflicting save shows theirs",
  () =>
    withAuthor(async (s, browser, page) => {
      await page.goto(`${s.url}/pipelines/new`);
      await page.fill("#p-name", "team/broken");
      await fillSpec(page, oneNode("Bad Id", "SELECT 1"));
      await page.click("button:has-text('Create draft')");
      const error = page.locator("#p-spec-error");
      match(await error.textContent() ?? "", /pipeline\.validation\./);
      equal(await page.locator("#p-spec").getAttribute("aria-invalid"), "true");
      match(await page.locator("#p-spec").inputValue(), /Bad Id/);

      await page.fill("#p-name", "team/shared");
      await fillSpec(page, oneNode("one", "SELECT 1 AS n"));
      await page.click("button:has-text('Create draft')");
      await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
      const pipelineUrl = page.url().replace(/\?.*$/, "");

      // Two editors open on the same draft; the first saves, then the second.
      const other = await browser.newPage({ storageState: await page.context().storageState() });
      await page.goto(`${pipelineUrl}/edit`);
      await other.goto(`${pipelineUrl}/edit`);
      await fillSpec(page, oneNode("one", "SELECT 2 AS n"));
      await page.click("button:has-text('Save draft')");
      await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
      await fillSpec(other, oneNode("one", "SELECT 3 AS n"));
      await other.click("button:has-text('Save draft')");
      const conflict = other.locator(".conflict");
      await conflict.waitFor();
      match(await conflict.locator("pre").textContent() ?? "", /SELECT 2 AS n/);
      match(await other.locator("#p-spec").inputValue(), /SELECT 3 AS n/);
      // Saving again over theirs is a deliberate choice, and it goes through.
      await other.click("button:has-text('Save draft')");
      await other.locator(".banner.ok:has-text('Draft saved')").waitFor();
      ok(await other.locator("pre:has-text('SELECT 3 AS n')").count());
    }),
);

browserTest(
  "versions compare by parameters and body, and an older release can be made current",
  () =>
    withAuthor(async (s, _b, page, problems) => {
      await page.goto(`${s.url}/pipelines/new`);
      await page.fill("#p-name", "team/versions");
      await fillSpec(page, oneNode("one", "SELECT 1 AS n"));
      await page.click("button:has-text('Create draft')");
      await confirmAct(page, "a:has-text('Release v1')");
      await page.locator(".banner.ok:has-text('Released v1')").waitFor();

      await page.click("a:has-text('Edit')");
      // One line far wider than the page: the diff must scroll sideways, so axe has a
      // scrollable region to judge (scrollable-region-focusable).
      const wide = `SELECT :n AS n, '${"w".repeat(400)}' AS wide`;
      await fillSpec(page, oneNode("one", wide, { n: { type: "integer", default: 2 } }));
      await page.click("button:has-text('Save draft')");
      await page.locator(".banner.ok:has-text('Draft saved')").waitFor();
      await page.click("a:has-text('Compare')");
      await page.locator("h1:has-text('v1 → v2')").waitFor();
      deepEqual(await page.locator("td .badge").allTextContents(), ["added"]);
      ok(await page.locator("pre.diff .add:has-text('SELECT :n AS n')").count());
      ok(await page.locator("pre.diff .del:has-text('SELECT 1 AS n')").count());
      ok(await page.locator("pre.diff").evaluate((e) => e.scrollWidth > e.clientWidth));
      await accessibleInBothThemes(page, "compare");

      await page.goBack();
      await confirmAct(page, "a:has-text('Release v2')");
      await page.locator(".banner.ok:has-text('Released v2')").waitFor();
      await confirmAct(page, "a:has-text('Make current')");
      await page.locator(".banner.ok:has-text('v1 is now the current release')").waitFor();
      equal(
        await page.locator("tr:has(.badge.info:has-text('current')) td").first().textContent(),
        "v1current",
      );
      // v2 is released but no longer current: it can be discarded, then restored.
      await confirmAct(page, "tr:has(td:has-text('v2')) a:has-text('Discard')");
      await page.locator(".banner.ok:has-text('Discarded v2')").waitFor();
      await confirmAct(page, "tr:has(td:has-text('v2')) a:has-text('Restore')");
      await page.locator(".banner.ok:has-text('Restored v2')").waitFor();
      deepEqual(problems, []);
    }),
);
