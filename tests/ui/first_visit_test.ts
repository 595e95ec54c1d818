/**
 * A new user's first minutes in a real browser: sign in with the one-time password, the forced
 * change, and the landing in the demo workspace's dashboard — with no console error and no
 * serious accessibility violation on any page on the way, in both themes.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  signIn,
  watchConsole,
} from "../support/browser.ts";

const EMAIL = "admin@example.com";
const FIRST = "first-password-123";

demoBrowserTest(
  "a first sign-in changes the password and lands on the demo dashboard",
  async (server, browser) => {
    const page = await browser.newPage();
    const problems = watchConsole(page);
    // The sign-in page's own sweep is site_test.ts's.
    await signIn(page, server.url, EMAIL, FIRST);
    equal(new URL(page.url()).pathname, "/settings/password");
    await accessibleInBothThemes(page, "forced password change");
    await page.fill("input[name=current_password]", FIRST);
    await page.fill("input[name=new_password]", "a-better-password-456");
    await Promise.all([page.waitForURL("**/dashboard"), page.click("button[type=submit]")]);

    // The super admin lands in the only active workspace: the demo, with its four pipelines.
    equal(await page.locator("#workspace-switch").inputValue(), "demo");
    equal(await page.locator(".stat .value").first().textContent(), "4");
    match(await page.title(), /Dashboard/);
    await accessibleInBothThemes(page, "dashboard");

    // The theme choice, in the account menu, is stored through the partial and survives a reload.
    await page.click(".account-menu summary");
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/partials/profile/theme") && r.ok()),
      page.click("[data-theme-choice=dark]"),
    ]);
    await page.reload();
    equal(await page.locator("html").getAttribute("data-theme"), "dark");
    deepEqual(problems, []);
  },
  EMAIL,
  FIRST,
);
