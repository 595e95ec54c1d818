/**
 * The one field component in every editor: a refused save puts the error under the field it
 * names, tied to it by aria-invalid and aria-describedby, on the template editor and the
 * datasource form alike; both pages pass axe with the error showing.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import type { Page } from "playwright-core";
import { accessibleInBothThemes, demoBrowserTest, newUserPage } from "../support/browser.ts";

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

demoBrowserTest(
  "template and datasource forms place a refusal on its field, accessibly",
  async (server, browser) => {
    const { page, problems } = await newUserPage(server, browser, "ops@example.com", true);

    await page.goto(`${server.url}/templates/new`);
    await page.fill("#t-id", "nofolder");
    await page.fill("#t-name", "No folder");
    await page.click("button:has-text('Create draft')");
    match(await errorOn(page, "t-id"), /./);
    await accessibleInBothThemes(page, "template editor");

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
    await accessibleInBothThemes(page, "datasource form");
    // The two refusals answered 400 on purpose (the browser logs each twice); nothing else.
    deepEqual(problems.filter((p) => !/\b400\b/.test(p)), []);
  },
);
