/**
 * The signed-in pages at a phone's width and a laptop's (issue 28): no page scrolls sideways,
 * the navigation is reachable (folded behind the menu button on the phone, with or without the
 * script), and axe finds no serious or critical violation in either theme at either width.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  runResultShown,
  signIn,
  userPage,
} from "../support/browser.ts";

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 900 };

/** How much wider than the window the page is (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
}

demoBrowserTest(
  "the dashboard, a pipeline, its run form, a run and its result fit a phone and a laptop",
  async (s, browser) => {
    const admin = await createUser(s.runtime, "dana@example.com", { isAdmin: true });
    const { page, problems } = await userPage(browser, s.url, admin, { viewport: PHONE });
    await page.goto(`${s.url}/pipelines?prefix=demo/`);
    const pipeline = (await page.locator(`a.title:has-text("Revenue against target")`)
      .getAttribute("href"))!;
    await page.goto(`${s.url}${pipeline}/run`);
    await page.click("button:has-text('Run pipeline')");
    await runResultShown(page, problems);
    const run = new URL(page.url()).pathname;
    const pages = ["/dashboard", pipeline, `${pipeline}/run`, run, `${run}/result`];

    for (const size of [PHONE, LAPTOP]) {
      await page.setViewportSize(size);
      for (const path of pages) {
        await page.goto(s.url + path);
        equal(await overflow(page), 0, `${path} at ${size.width} px is wider than the window`);
        await accessibleInBothThemes(page, `${path} at ${size.width} px`);
      }
    }

    // On the laptop the navigation is drawn and the menu button is not.
    ok(await page.locator("#sidenav a:has-text('Runs')").isVisible());
    ok(await page.locator(".nav-toggle").isHidden());

    // On the phone it is folded behind the button, which says so, opens it, and Escape shuts it.
    await page.setViewportSize(PHONE);
    await page.goto(`${s.url}/dashboard`);
    const toggle = page.locator(".nav-toggle");
    const runs = page.locator("#sidenav a:has-text('Runs')");
    ok(await runs.isHidden());
    equal(await toggle.getAttribute("aria-expanded"), "false");
    await toggle.click();
    equal(await toggle.getAttribute("aria-expanded"), "true");
    await runs.waitFor();
    await accessibleInBothThemes(page, "the open navigation");
    await page.keyboard.press("Escape");
    equal(await toggle.getAttribute("aria-expanded"), "false");
    ok(await runs.isHidden());
    equal(await page.evaluate(() => document.activeElement?.className), "nav-toggle ghost");
    // A click beside it shuts it too; a link in it leads where it says.
    await toggle.click();
    await page.mouse.click(195, 800);
    ok(await runs.isHidden());
    await toggle.click();
    await Promise.all([page.waitForURL("**/runs"), runs.click()]);
    equal(await overflow(page), 0, "/runs at 390 px");
    // The top bar keeps the docs, the account menu, the theme and sign-out within reach.
    await page.click(".account-menu summary");
    for (const control of ["[data-theme-choice=dark]", "button:has-text('Sign out')"]) {
      ok(await page.locator(control).isVisible(), control);
    }
    const docs = page.locator(".topbar > a.topbar-link[href='/docs']");
    ok(await docs.isVisible());
    equal(await overflow(page), 0, "the open account menu");
    deepEqual(problems, []);

    // Without the script the button could not open anything: the navigation stays drawn.
    const plain = await browser.newPage({ viewport: PHONE, javaScriptEnabled: false });
    await signIn(plain, s.url, admin.email, admin.password);
    ok(await plain.locator(".nav-toggle").isHidden());
    await Promise.all([
      plain.waitForURL("**/runs"),
      plain.click("#sidenav a:has-text('Runs')"),
    ]);
    equal(await overflow(plain), 0, "/runs without the script");
  },
);
