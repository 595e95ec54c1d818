/**
 * Registering and editing a datasource in a real browser: the error lands on its field, the
 * password is never shown again (not on the page, not in the edit form), and an edit that leaves
 * the password empty keeps the stored secret working.
 */
import { equal, match, ok } from "node:assert/strict";
import { browserTest, newUserPage, withDemoBrowser } from "../support/browser.ts";
import { assertServices } from "../support/services.ts";

const SECRET = "canary-password-5f1c";

browserTest(
  "a datasource registered and edited from the browser keeps its secret write-only",
  async () => {
    assertServices("postgres");
    await withDemoBrowser(async (server, browser) => {
      const { page, problems } = await newUserPage(server, browser, "ops@example.com", true);
      await page.goto(`${server.url}/datasources`);
      await page.click("a:has-text('Register datasource')");

      await page.fill("#d-name", "Bad Name");
      await page.fill("#d-url", "jdbc:postgresql://127.0.0.1:5432/postgres");
      await page.click("button:has-text('Register')");
      match(await page.locator("#d-name ~ .error").textContent() ?? "", /./);
      equal(await page.locator("#d-name").getAttribute("aria-invalid"), "true");
      // The refusal answered 400 on purpose (the browser logs it); nothing else may.
      equal(problems.splice(0).filter((p) => !/\b400\b/.test(p)).length, 0);

      await page.fill("#d-name", "ops_pg");
      await page.fill("#d-display", "Ops PostgreSQL");
      await page.selectOption("#d-dialect", "POSTGRES");
      await page.fill("#d-url", "jdbc:postgresql://127.0.0.1:5432/postgres");
      await page.fill("#d-user", "postgres");
      await page.fill("#d-password", SECRET);
      await page.click("button:has-text('Register')");
      await page.locator(".banner.ok:has-text('Datasource saved')").waitFor();
      ok(!(await page.content()).includes(SECRET), "the page shows no secret");

      await page.click("a:has-text('Edit')");
      equal(await page.locator("#d-password").inputValue(), "");
      ok(!(await page.content()).includes(SECRET), "the form shows no secret");
      await page.fill("#d-display", "Ops PostgreSQL (renamed)");
      await page.click("button:has-text('Save')");
      await page.locator("h1:has-text('Ops PostgreSQL (renamed)')").waitFor();
      await page.click("button:has-text('Test connection')");
      await page.locator("#test-outcome .badge:has-text('reachable')").waitFor();
      equal(problems.length, 0, problems.join("\n"));
    });
  },
);
