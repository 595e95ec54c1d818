/**
 * Progress in the live run view, in a real browser: the summary counts finished nodes as the
 * stream reports them, and a node's bar turns determinate where the events tell its row total —
 * on a replay of the stored stream, every node that wrote rows — and stays indeterminate otherwise.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  accessibilityProblems,
  demoBrowserTest,
  newUserPage,
  openDemoRunForm,
  runResultShown,
} from "../support/browser.ts";

interface BarChange {
  run: boolean;
  node: string | null;
  value: string | null;
  max: string | null;
}

/** Records every change of a progress bar's value or max from now on (survives re-renders). */
async function recordBars(page: Page): Promise<void> {
  await page.evaluate(() => {
    const changes: unknown[] = [];
    (globalThis as unknown as { barChanges: unknown[] }).barChanges = changes;
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target as Element;
        if (el.tagName !== "PROGRESS") continue;
        changes.push({
          run: el.hasAttribute("data-run-progress"),
          node: (el.closest("[data-node-row]") as HTMLElement | null)?.dataset.nodeRow ?? null,
          value: el.getAttribute("value"),
          max: el.getAttribute("max"),
        });
      }
    }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["value"] });
  });
}

function barChanges(page: Page): Promise<BarChange[]> {
  return page.evaluate(() => (globalThis as unknown as { barChanges: BarChange[] }).barChanges);
}

demoBrowserTest(
  "the run view counts finished nodes and shows row progress where it is known",
  async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "boss@example.com", true);
    await openDemoRunForm(page, server.url, "Revenue against target");
    await recordBars(page);
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);

    // Live: the summary bar climbed to every node finished, out of the graph's three.
    const live = await barChanges(page);
    const runBar = live.filter((c) => c.run);
    deepEqual(runBar.map((c) => c.max), runBar.map(() => "3"));
    equal(runBar.at(-1)?.value, "3");
    // None of the demo's nodes writes back, so no live node bar claimed a total it cannot know.
    deepEqual(live.filter((c) => !c.run && c.value !== null), []);

    // Replay: the stored stream ends with each node's row count, so the bars know their totals.
    const totals = new Map<string, string>();
    for (const row of await page.locator("[data-node-row]").all()) {
      const rows = (await row.locator("[data-node-rows]").textContent())!.trim();
      if (/^\d+$/.test(rows) && rows !== "0") {
        totals.set(
          (await row.getAttribute("data-node-row"))!,
          rows,
        );
      }
    }
    ok(totals.size > 0, "some node returned rows");
    await recordBars(page);
    await page.click("button[data-replay]");
    await page.locator("button[data-replay]:not([disabled])").waitFor();
    await page.locator("[data-run-progress-text]:has-text('3 of 3 nodes finished')").waitFor();
    const replay = (await barChanges(page)).filter((c) => !c.run && c.value !== null);
    ok(replay.length > 0, "a node bar was determinate during the replay");
    for (const c of replay) {
      equal(c.max, totals.get(c.node!), `${c.node}'s total is its stored row count`);
      ok(Number(c.value) <= Number(c.max));
    }
    deepEqual(await accessibilityProblems(page), []);
    deepEqual(problems, []);
  },
);
