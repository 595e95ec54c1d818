/**
 * The dashboard's first minutes (issue 28 item 5) in a real browser: the demo workspace's
 * pipelines each a click from their run form, and the first steps ticking off from what is so —
 * a run of yours, a result opened, an endpoint published, a call through it — until the list
 * leaves; a viewer gets the two steps they can take.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createUser } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  runResultShown,
  userPage,
} from "../support/browser.ts";
import type { TestServer } from "../support/harness.ts";

/** A member of the demo workspace (an author when `author`), signed in on a page of their own. */
async function demoMember(s: TestServer, browser: Browser, email: string, author: boolean) {
  const boss = await createUser(s.runtime, `boss-${email}`, { isAdmin: true });
  const user = await createUser(s.runtime, email);
  await s.runtime.workspaces.addMember(boss.principal, "demo", { email, author });
  s.runtime.directory.forgetWorkspaces();
  return await userPage(browser, s.url, user);
}

/** The first steps as drawn: each step's title and whether it is ticked. */
async function steps(page: Page): Promise<[string, boolean][]> {
  await page.goto(new URL("/dashboard", page.url()).href);
  return await page.locator(".first-steps li").evaluateAll((items) =>
    items.map((li) =>
      [
        li.querySelector("strong")!.textContent!.replace(/^(Done|To do): /, ""),
        li.classList.contains("done"),
      ] as [string, boolean]
    )
  );
}

demoBrowserTest(
  "an author's first steps tick off from real state, and the dashboard's pipelines run",
  async (s, browser) => {
    const { page, problems } = await demoMember(s, browser, "ana@example.com", true);
    await page.goto(`${s.url}/dashboard`);
    deepEqual(await steps(page), [
      ["Run a demo pipeline", false],
      ["Open its chart", false],
      ["Publish it", false],
      ["Call it", false],
    ]);
    match(await page.locator(".first-steps header").innerText(), /0 of 4 done/);
    // Steps that need the one before say so instead of linking nowhere.
    equal(await page.locator(".first-steps li:nth-child(2) a").count(), 0);
    await accessibleInBothThemes(page, "dashboard, first steps");

    // The workspace's pipelines, each with Run to its run form.
    const rows = page.locator(".pipeline-list li");
    equal(await rows.count(), 4);
    const revenue = rows.filter({ hasText: "Revenue against target" });
    await Promise.all([
      page.waitForURL(/\/pipelines\/[0-9a-f-]{36}\/run$/),
      revenue.locator("a:has-text('Run')").click(),
    ]);
    match(await page.locator("h1").innerText(), /Run Revenue against target/);

    // 1. Run the demo report from the list.
    await page.goto(`${s.url}/dashboard`);
    await page.click(".first-steps a:has-text('Run it')");
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);
    deepEqual((await steps(page)).map(([, done]) => done), [true, false, false, false]);

    // 2. Open its result: the step links the latest one.
    await Promise.all([
      page.waitForURL(/\/runs\/[0-9a-f-]{36}\/result$/),
      page.click(".first-steps a:has-text('Open the result')"),
    ]);
    await page.locator("[data-chart]").waitFor();
    deepEqual((await steps(page)).map(([, done]) => done), [true, true, false, false]);

    // 3. Publish it.
    await page.click(".first-steps a:has-text('Publish')");
    await page.fill("#publish-path", "/shop/top-customers/{country}");
    await Promise.all([
      page.waitForURL("**/endpoints/view?**"),
      page.click("button:has-text('Publish')"),
    ]);
    deepEqual((await steps(page)).map(([, done]) => done), [true, true, true, false]);
    match(await page.locator(".first-steps header").innerText(), /3 of 4 done/);

    // 4. Call it from the endpoint's page with a key made there: the list has done its work.
    await page.click(".first-steps a:has-text('Try it')");
    await page.selectOption("#try-key", "new");
    await page.locator("#key-create-slot button:has-text('Create key')").click();
    await page.locator("#issued-secret").waitFor();
    await page.click("#try-send");
    await page.locator("#try-table .result-table").waitFor();
    await page.goto(`${s.url}/dashboard`);
    equal(await page.locator(".first-steps").count(), 0);
    ok(await page.locator(".pipeline-list").isVisible());
    deepEqual(problems, []);
  },
);

demoBrowserTest(
  "a viewer's first steps stop at the chart; outside the demo there are none",
  async (s, browser) => {
    const { page, problems } = await demoMember(s, browser, "vic@example.com", false);
    await page.goto(`${s.url}/dashboard`);
    deepEqual(await steps(page), [["Run a demo pipeline", false], ["Open its chart", false]]);
    // A viewer may run what they read: Run is on every pipeline of the list.
    equal(await page.locator(".pipeline-list a:has-text('Run')").count(), 4);
    await page.click(".first-steps a:has-text('Run it')");
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);
    await page.goto(`${s.url}/dashboard`);
    await page.click(".first-steps a:has-text('Open the result')");
    await page.locator("[data-chart]").waitFor();
    await page.goto(`${s.url}/dashboard`);
    equal(await page.locator(".first-steps").count(), 0);

    // Another workspace: its own pipelines (none yet), no demo steps.
    const admin = await createUser(s.runtime, "root2@example.com", { isAdmin: true });
    const own = await userPage(browser, s.url, admin);
    await own.page.goto(`${s.url}/admin/workspaces`);
    await own.page.fill("#new-ws-name", "sales");
    await Promise.all([
      own.page.waitForURL(/done=created/),
      own.page.click("text=Create workspace"),
    ]);
    await Promise.all([
      own.page.waitForURL(/\/dashboard$/),
      own.page.selectOption("#workspace-switch", "sales"),
    ]);
    equal(await own.page.inputValue("#workspace-switch"), "sales");
    equal(await own.page.locator(".first-steps").count(), 0);
    match(
      await own.page.locator(".card:has(.pipeline-list), .card:has-text('No pipelines yet')")
        .first().innerText(),
      /No pipelines yet/,
    );
    deepEqual([...problems, ...own.problems], []);
  },
);
