/**
 * The one field component in every editor: a refused save puts the error under the field it
 * names, tied to it by aria-invalid and aria-describedby, on the template editor and the
 * datasource form alike; both pages pass axe with the error showing.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../access_fixtures.ts";
import {
  accessibilityProblems,
  browserTest,
  demoServer,
  launchBrowser,
  signIn,
  watchConsole,
} from "../browser.ts";

/** The control's error is there, described by it, and announced. */
async function errorOn(page: Page, id: string): Promise<string> {
  const error = page.locator(`#${id}-error`);
  await error.waitFor();
  equal(await page.locator(`#${id}`).getAttribute("aria-invalid"), "true");
  match(
    await page.locator(`#${id}`).getAttribute("aria-describedby") ?? "",
    new RegExp(`${id}-error`),
  );
  equal(await error.getAttribute("role"), "alert");
  return await error.textContent() ?? "";
}

browserTest("template and datasource forms place a refusal on its field, accessibly", async () => {
  const server = await demoServer("root@example.com");
  const browser = await launchBrowser();
  try {
    const admin = await createUser(server.runtime, "ops@example.com", { isAdmin: true });
    const page = await browser.newPage();
    const problems = watchConsole(page);
    await signIn(page, server.url, admin.email, admin.password);

    await page.goto(`${server.url}/templates/new`);
    await page.fill("#t-id", "nofolder");
    await page.fill("#t-name", "No folder");
    await page.click("button:has-text('Create draft')");
    match(await errorOn(page, "t-id"), /./);
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => document.documentElement.dataset.theme = t, theme);
      deepEqual(await accessibilityProblems(page), [], `template editor (${theme})`);
    }

    await page.goto(`${server.url}/datasources/new`);
    await page.fill("#d-name", "Bad Name");
    await page.fill("#d-url", "jdbc:duckdb:");
    await page.click("button:has-text('Register')");
    match(await errorOn(page, "d-name"), /./);
    // The password field says what happens to it, through its hint.
    match(
      await page.locator("#d-password").getAttribute("aria-describedby") ?? "",
      /d-password-hint/,
    );
    for (const theme of ["light", "dark"]) {
      await page.evaluate((t) => document.documentElement.dataset.theme = t, theme);
      deepEqual(await accessibilityProblems(page), [], `datasource form (${theme})`);
    }
    // The two refusals answered 400 on purpose (the browser logs each twice); nothing else.
    deepEqual(problems.filter((p) => !/\b400\b/.test(p)), []);
  } finally {
    await browser.close();
    await server.close();
  }
});
