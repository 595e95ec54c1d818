/**
 * A new user's first minutes in a real browser: sign in with the one-time password, the forced
 * change, and the landing in the demo workspace's dashboard — with no console error and no
 * serious accessibility violation on any page on the way, in both themes.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import {
  accessibilityProblems,
  browserTest,
  launchBrowser,
  signIn,
  watchConsole,
} from "../browser.ts";
import { startTestServer } from "../harness.ts";

const EMAIL = "admin@example.com";
const FIRST = "first-password-123";

browserTest("a first sign-in changes the password and lands on the demo dashboard", async () => {
  const server = await startTestServer({
    env: {
      SERVICE_DEMO_ENABLED: "true",
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: EMAIL,
      SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: FIRST,
    },
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const problems = watchConsole(page);
    await page.goto(`${server.url}/login`);
    deepEqual(await accessibilityProblems(page), []);
    await signIn(page, server.url, EMAIL, FIRST);
    equal(new URL(page.url()).pathname, "/settings/password");
    deepEqual(await accessibilityProblems(page), []);
    await page.fill("input[name=current_password]", FIRST);
    await page.fill("input[name=new_password]", "a-better-password-456");
    await Promise.all([page.waitForURL("**/dashboard"), page.click("button[type=submit]")]);

    // The super admin lands in the only active workspace: the demo, with its four pipelines.
    equal(await page.locator("#workspace-switch").inputValue(), "demo");
    equal(await page.locator(".stat .value").first().textContent(), "4");
    match(await page.title(), /Dashboard/);
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => document.documentElement.dataset.theme = t, theme);
      deepEqual(await accessibilityProblems(page), [], `${theme} theme`);
    }

    // The theme choice is stored through the partial and survives a reload.
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/partials/profile/theme") && r.ok()),
      page.click("[data-theme-choice=dark]"),
    ]);
    await page.reload();
    equal(await page.locator("html").getAttribute("data-theme"), "dark");
    deepEqual(problems, []);
  } finally {
    await browser.close();
    await server.close();
  }
});
