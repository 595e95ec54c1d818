/**
 * A run's nodes in a real browser, on the demo summary (a PIPELINE node runs the top-customers
 * report as a child run): the timeline has one bar per node, live and then from the stored
 * events; the child run sits under its parent node and under its parent's row in the history,
 * named, and links back; a node's disclosure shows its SQL as rendered with the bound values.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  newUserPage,
  openDemoPipeline,
  openDemoRunForm,
  openRunForm,
  runResultShown,
  slowDemoPipeline,
} from "../support/browser.ts";

/** Widths of the timeline's bars, in the order of its rows. */
async function barWidths(page: Page): Promise<number[]> {
  return (await page.locator("[data-timeline] [data-span-bar]").evaluateAll((bars) =>
    bars.map((b) => b.getAttribute("width"))
  )).map(Number);
}

/** Opens a node's disclosure and waits for its body to load. */
async function openNode(page: Page, node: string) {
  const group = page.locator(`tbody.node-group:has([data-node-row="${node}"])`);
  await group.locator("details.node-detail summary").click();
  await group.locator(".node-detail-body").waitFor();
  return group;
}

demoBrowserTest(
  "a run shows a timeline per node, its child run nested and named, and each node's SQL",
  async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "runner@example.com", true);
    await openDemoPipeline(page, server.url, "Top five customers, summarised");
    // The PIPELINE node names the pipeline it runs, not its id.
    await page.locator("#node-top").waitFor();
    match(await page.locator("#node-top").innerText(), /Runs pipeline Top customers \(report\)/);
    await accessibleInBothThemes(page, "summary pipeline");
    await openRunForm(page);
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);

    // Live: the bars grew from the stream; then the view was drawn again from the record.
    const live = page.locator("#run-live");
    equal(await live.locator("[data-timeline] [data-span]").count(), 2);
    for (const w of await barWidths(page)) ok(w > 0, `a bar of width ${w}`);
    const runUrl = page.url();
    const runId = runUrl.slice(runUrl.lastIndexOf("/") + 1);

    // Finished: drawn from the stored events, one done bar per node, its times as text.
    await page.reload();
    const rows = page.locator("[data-timeline] tbody tr");
    equal(await rows.count(), 2);
    deepEqual(
      await page.locator("[data-timeline] [data-span-bar]").evaluateAll((bars) =>
        bars.map((b) => b.getAttribute("class"))
      ),
      ["timeline-bar state-done", "timeline-bar state-done"],
    );
    const widths = await barWidths(page);
    for (const w of widths) ok(w > 0 && w <= 1000, `a bar of width ${w}`);
    // The summary starts after the child run ends: its bar starts right of the first one's.
    const xs = await page.locator("[data-timeline] [data-span-bar]").evaluateAll((bars) =>
      bars.map((b) => Number(b.getAttribute("x")))
    );
    ok(xs[1] >= xs[0] + widths[0] - 3, `bars at ${xs} of widths ${widths}`);
    match(await rows.nth(0).locator("[data-span-start]").innerText(), /^\+\d/);

    // The child run sits under its node, named after its pipeline.
    equal(await page.locator("[data-child-pipeline]").innerText(), "Top customers (report)");
    const child = page.locator("tbody.node-group:has([data-node-row=top]) [data-child-run]");
    match(await child.innerText(), /Child run of Top customers \(report\)\s+success/);
    const childId = await child.getAttribute("data-child-run");

    // A node's SQL on demand: an inline statement, and where the PIPELINE node's rows went.
    const summary = await openNode(page, "summary");
    match(await summary.locator("[data-node-sql]").innerText(), /FROM top_customers/);
    const top = await openNode(page, "top");
    match(await top.locator(".node-detail-body").innerText(), /staged as top_customers/);
    await accessibleInBothThemes(page, "finished run");

    // The child run links back to its parent and renders its template with the bound values.
    await page.click(`a[href="/runs/${childId}"] >> nth=0`);
    await page.locator("[data-parent-run]").waitFor();
    match(await page.locator("[data-parent-run]").innerText(), /node top in a run of/);
    equal(
      await page.locator("[data-parent-run] a").getAttribute("href"),
      `/runs/${runId}`,
    );
    const report = await openNode(page, "top_customers");
    match(await report.locator("[data-node-sql]").innerText(), /:country/);
    const bound = Object.fromEntries(
      (await report.locator(".bound-values tbody tr").evaluateAll((trs) =>
        trs.map((tr) => [tr.querySelector("th")!.textContent, tr.querySelector("td")!.textContent])
      )) as [string, string][],
    );
    equal(bound[":country"], '"FR"');
    equal(bound[":limit"], "5");
    match(await report.innerText(), /Its rows went to node top of the parent run/);
    await accessibleInBothThemes(page, "child run");

    // The history: one top-level row, the child nested under it and pointing at its node.
    await page.goto(`${server.url}/runs`);
    equal(await page.locator("tbody tr:not(.child-run)").count(), 1);
    const nestedRow = page.locator("tbody tr.child-run");
    equal(await nestedRow.count(), 1);
    equal(await nestedRow.getAttribute("data-child-of"), runId);
    match(await nestedRow.innerText(), /demo\/top_customers[\s\S]*child run of node top/);
    await accessibleInBothThemes(page, "history");

    // Asked for by pipeline, the child run stands alone and links to its parent run.
    await page.selectOption("select[name=pipeline]", { label: "demo/top_customers" });
    await page.click("button:has-text('Filter')");
    await page.waitForURL(/pipeline=/);
    equal(await page.locator("tbody tr").count(), 1);
    equal(
      await page.locator("tbody tr a:has-text('its parent run')").getAttribute("href"),
      `/runs/${runId}`,
    );
    deepEqual(problems, []);
  },
);

demoBrowserTest(
  "Replay is explained beside Run again and draws the timeline again from the stored events",
  async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "replayer@example.com", true);
    await openDemoRunForm(page, server.url, "Revenue against target");
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);
    await page.reload();
    const help = await page.locator("[data-replay]").getAttribute("aria-describedby");
    match(await page.locator(`#${help}`).innerText(), /nothing runs.*Run again starts a new run/s);
    await page.click("[data-replay]");
    // Replay clears the bars, then the stored events draw all three again.
    await page.locator("[data-replay]:disabled").waitFor();
    await page.locator("[data-replay]:enabled").waitFor();
    const widths = await barWidths(page);
    equal(widths.length, 3);
    for (const w of widths) ok(w > 0, `a bar of width ${w}`);
    deepEqual(problems, []);
  },
);

demoBrowserTest(
  "while a run runs, its node's bar is drawn from the stream and the axis grows",
  async (server, browser) => {
    const { user, page, problems } = await newUserPage(
      server,
      browser,
      "watcher@example.com",
      true,
    );
    const slow = await slowDemoPipeline(server, user);
    await page.goto(`${server.url}/pipelines/${slow.id}/run`);
    await page.waitForLoadState("load");
    await page.click("button:has-text('Run pipeline')");
    const row = page.locator("#run-live [data-span=forever][data-start]");
    await row.waitFor();
    equal(await row.locator("[data-span-bar]").getAttribute("class"), "timeline-bar state-running");
    const total = page.locator("#run-live [data-timeline-total]");
    const first = await total.innerText();
    // The axis is the run so far: it moves on without any event arriving.
    await page.waitForFunction(
      (before) => document.querySelector("#run-live [data-timeline-total]")?.textContent !== before,
      first,
    );
    ok(Number(await row.locator("[data-span-bar]").getAttribute("width")) > 0);
    equal(await row.locator("[data-span-took]").innerText(), "running");
    await page.click("#run-live [data-cancel]");
    await page.locator("#run-live [data-run-status] .badge:has-text('aborted')").waitFor();
    deepEqual(problems, []);
  },
);
