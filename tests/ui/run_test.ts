/**
 * The run journey in a real browser on the demo content: open a pipeline, run it from its
 * parameter form, watch every node reach done, read the result, page it, chart it and download
 * it as CSV; and a parameter error lands on its field.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { Page } from "playwright-core";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { ResultTable } from "../../ui/components/result_table.tsx";
import { notePage } from "../../ui/components/result_table_fixtures.ts";
import {
  accessibilityProblems,
  browserTest,
  launchBrowser,
  runResultShown,
  slowDemoPipeline,
  userPage,
  withDemoBrowser,
} from "../support/browser.ts";
import type { TestServer } from "../support/harness.ts";

const EMAIL = "admin@example.com";
const PASSWORD = "first-password-123";

function withDemo(fn: (s: TestServer, page: Page, problems: string[]) => Promise<void>) {
  return withDemoBrowser(
    async (server, browser) => {
      const admin = { email: EMAIL, password: PASSWORD };
      const { page, problems } = await userPage(browser, server.url, admin, {
        acceptDownloads: true,
      });
      await page.fill("input[name=current_password]", PASSWORD);
      await page.fill("input[name=new_password]", "another-password-789");
      await Promise.all([page.waitForURL("**/dashboard"), page.click("button[type=submit]")]);
      await fn(server, page, problems);
    },
    EMAIL,
    PASSWORD,
  );
}

browserTest(
  "a pipeline runs from its page, every node reaches done, the result pages, charts and downloads",
  () =>
    withDemo(async (s, page, problems) => {
      await page.click("nav >> text=Pipelines");
      await page.click("text=demo/");
      await page.click("text=Revenue against target");
      await page.locator("svg.dag .dag-node").first().waitFor();
      equal(await page.locator("svg.dag .dag-node").count(), 3);
      deepEqual(await accessibilityProblems(page), []);
      await page.click(".page-head a.btn.primary");
      await page.click("button:has-text('Run pipeline')");

      // The live view arrives, and every node row ends done: the stream drove the page.
      await runResultShown(page, problems);
      const states = await page.locator("[data-node-state]").allTextContents();
      deepEqual(states, ["done", "done", "done"]);
      equal(await page.locator("#run-live [data-run-status] .badge").textContent(), "success");
      match(new URL(page.url()).pathname, /^\/runs\/[0-9a-f-]{36}$/);
      equal(await page.locator("#run-live .result-table tbody tr").count(), 8);
      // The chart is on the run's own view, drawn from its sensible default: text on x, the
      // first measure on y, no id plotted.
      await page.locator("#run-live [data-chart] canvas").waitFor();
      equal(
        await page.locator("#run-live [data-chart-controls] select[name=x]").inputValue(),
        "country",
      );
      match(
        await page.locator("#run-live [data-retention]").textContent() ?? "",
        /Kept for .* until/,
      );
      deepEqual(await accessibilityProblems(page), []);

      // The stored run reads the same after a reload, from the record.
      await page.reload();
      deepEqual(await page.locator("[data-node-state]").allTextContents(), [
        "done",
        "done",
        "done",
      ]);

      await page.click("a:has-text('Open')");
      await page.locator("[data-chart] canvas").waitFor();
      equal(await page.locator(".result-table tbody tr").count(), 8);

      // Picks are remembered per pipeline: a second series and scatter survive a reload.
      const measures = page.locator("[data-chart-controls] input[name=y]");
      const second = (await measures.count()) > 1 ? measures.nth(1) : measures.first();
      await second.check();
      await page.selectOption("[data-chart-controls] select[name=kind]", "scatter");
      await page.reload();
      await page.locator("[data-chart] canvas").waitFor();
      equal(await page.locator("[data-chart-controls] select[name=kind]").inputValue(), "scatter");
      equal(await second.isChecked(), true);

      // A header sorts the loaded rows (NULLs last); a second click turns the order round.
      const firstColumn = () =>
        page.locator(".result-table tbody tr td:first-child").allTextContents();
      await page.click(".result-table th >> nth=0 >> button.sort");
      const ascending = await firstColumn();
      deepEqual(
        ascending,
        [...ascending].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })),
      );
      equal(await page.locator(".result-table th >> nth=0").getAttribute("aria-sort"), "ascending");
      await page.click(".result-table th >> nth=0 >> button.sort");
      deepEqual(await firstColumn(), [...ascending].reverse());
      // The quick filter narrows the rows on the page and says how many are left.
      await page.fill("[data-table-filter]", ascending[0]);
      match(await page.locator("[data-filter-count]").textContent() ?? "", /^\d+ of 8 rows/);
      equal(
        await page.locator(".result-table tbody tr:not([hidden])").count() < 8,
        true,
      );

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.click("a:has-text('Download CSV')"),
      ]);
      // Named after the pipeline and the minute the run ended, not the execution id.
      match(download.suggestedFilename(), /^revenue_vs_target-\d{4}-\d{2}-\d{2}-\d{4}\.csv$/);
      const csv = await Deno.readTextFile(await download.path());
      const lines = csv.trim().split(/\r?\n/);
      equal(lines.length, 9);
      match(lines[0], /^country,country_name,region/);
      deepEqual(await accessibilityProblems(page), []);

      await page.goto(`${s.url}/runs`);
      equal(await page.locator("tbody tr").count(), 1);
      deepEqual(problems, []);
    }),
);

browserTest(
  "the run form shows declared bounds, and a refusal names the bound under its field",
  () =>
    withDemo(async (_s, page) => {
      await page.click("nav >> text=Pipelines");
      await page.click("text=demo/");
      await page.click("text=Top customers (report)");
      await page.click(".page-head a.btn.primary");
      // The click navigates; wait for the run form rather than counting on the old page.
      const limit = page.locator("input[name=limit]");
      await limit.waitFor();
      // The declared bounds are in the form before anyone runs it.
      equal(await limit.getAttribute("min"), "1");
      equal(await limit.getAttribute("max"), "100");
      match(await page.locator("#param-limit-hint").textContent() ?? "", /from 1 to 100/);
      await limit.fill("500");
      await page.click("button:has-text('Run pipeline')");
      // The refusal names the bound the value passed, under its own field.
      const error = page.locator("[data-error-for=limit]");
      await error.filter({ hasText: /./ }).waitFor();
      equal(await error.textContent(), "Must be at most 100.");
      equal(await limit.getAttribute("aria-invalid"), "true");
      equal(await page.locator("#run-live [data-run]").count(), 0);
    }),
);

browserTest(
  "a running pipeline is cancelled from its live view and ends aborted",
  () =>
    withDemo(async (s, page, problems) => {
      const row = await s.runtime.db.first<{ id: string }>(
        "SELECT id FROM users WHERE email = $1",
        [EMAIL],
      );
      const slow = await slowDemoPipeline(s, { id: row!.id, email: EMAIL });
      await page.goto(`${s.url}/pipelines/${slow.id}/run`);
      await page.click("button:has-text('Run pipeline')");
      await page.locator("#run-live [data-cancel]").waitFor();
      await page.click("#run-live [data-cancel]");
      await page.locator("#run-live [data-run-status] .badge:has-text('aborted')").waitFor();
      deepEqual(problems, []);
    }),
);

browserTest(
  "sorting and the filter read a long cell's bounded title, and a huge cell does not weigh them",
  async () => {
    // Cells alike in the 80 characters shown, told apart only further on: the title decides.
    const alike = (tail: string) => `${"a".repeat(200)}${tail}`;
    const rows = [[alike("zebra"), 1], ["x".repeat(5_000_000), 2], [alike("ant"), 3], ["m", 4]];
    const table = renderToString(h(ResultTable, { page: notePage(rows) }));
    const script = await Deno.readTextFile(
      new URL("../../ui/static/js/result_table.js", import.meta.url),
    );
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.setContent(`<!doctype html><body>${table}<script>${script}</script></body>`);
      equal(await page.evaluate(() => document.body.innerHTML.length < 10_000), true);
      await page.click(".result-table th >> nth=1 >> button.sort");
      await page.click(".result-table th >> nth=0 >> button.sort");
      const order = () => page.locator(".result-table tbody td.num").allTextContents();
      deepEqual(await order(), ["3", "1", "4", "2"]);
      await page.fill("[data-table-filter]", "zebra");
      deepEqual(
        await page.locator(".result-table tbody tr:not([hidden]) td.num").allTextContents(),
        ["1"],
      );
      equal(await page.locator("[data-filter-count]").textContent(), "1 of 4 rows on this page");
    } finally {
      await browser.close();
    }
  },
);
