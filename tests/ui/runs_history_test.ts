/**
 * Run history in a real browser: a super admin sees everyone's runs in the workspace and can
 * narrow them to one person's; anyone else sees only their own (spec 2 §4.5) — no "who" filter,
 * and a `who` put in the URL by hand changes nothing.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createUser, type TestUser } from "../support/access_fixtures.ts";
import {
  accessibilityProblems,
  accessibleInBothThemes,
  demoBrowserTest,
  openDemoRunForm,
  runResultShown,
  userPage,
  watchConsole,
} from "../support/browser.ts";

/** Signs `user` in on a page of their own and runs the demo report once, to its result. */
async function runReport(browser: Browser, base: string, user: TestUser): Promise<Page> {
  const { page, problems } = await userPage(browser, base, user);
  await openDemoRunForm(page, base, "Revenue against target");
  await page.click("button:has-text('Run pipeline')");
  await runResultShown(page, problems);
  return page;
}

demoBrowserTest(
  "a super admin filters the run history by who started them; others see their own",
  async (server, browser) => {
    const admin = await createUser(server.runtime, "boss@example.com", { isAdmin: true });
    const viewer = await createUser(server.runtime, "looker@example.com");
    const adminPage = await runReport(browser, server.url, admin);
    const viewerPage = await runReport(browser, server.url, viewer);
    await runReport(browser, server.url, viewer);
    const problems = watchConsole(adminPage);

    await adminPage.goto(`${server.url}/runs`);
    equal(await adminPage.locator("tbody tr").count(), 3);
    deepEqual(
      await adminPage.locator("select[name=who] option").allTextContents(),
      ["Started by anyone", "You", "looker"],
    );
    await adminPage.selectOption("select[name=who]", viewer.id);
    await adminPage.click("button:has-text('Filter')");
    await adminPage.waitForURL(/who=/);
    deepEqual(await adminPage.locator("tbody tr td:nth-child(4)").allTextContents(), [
      "looker",
      "looker",
    ]);
    await accessibleInBothThemes(adminPage, "filtered runs");
    await adminPage.selectOption("select[name=who]", admin.id);
    await adminPage.click("button:has-text('Filter')");
    await adminPage.waitForURL(new RegExp(`who=${admin.id}`));
    equal(await adminPage.locator("tbody tr").count(), 1);
    deepEqual(problems, []);

    // The viewer: their own two runs, no "who" filter, no "By" column, and the URL cannot widen it.
    await viewerPage.goto(`${server.url}/runs`);
    equal(await viewerPage.locator("select[name=who]").count(), 0);
    equal(await viewerPage.locator("th:has-text('By')").count(), 0);
    equal(await viewerPage.locator("tbody tr").count(), 2);
    await viewerPage.goto(`${server.url}/runs?who=${admin.id}`);
    equal(await viewerPage.locator("tbody tr").count(), 2);
    deepEqual(await accessibilityProblems(viewerPage), []);
  },
);
