/**
 * The code editors' pages under the strict Content-Security-Policy (no inline style of any kind):
 * typing over a selection, the JSON view and the search panel raise no violation, while a style
 * attribute set on purpose does (so the listener is known to hear them). The editor's modules load
 * on the editor pages only, and each page only the languages it has.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { demoBrowserTest, fillEditor, newUserPage } from "../support/browser.ts";

/** Every CSP violation of the page, as `directive: sample`, kept on the window. */
async function listenForViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    // deno-lint-ignore no-explicit-any
    (globalThis as any).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) => {
      seen.push(`${e.effectiveDirective}: ${e.sample || e.blockedURI}`);
    });
  });
}

// deno-lint-ignore no-explicit-any
const violations = (page: Page) => page.evaluate(() => (globalThis as any).cspViolations);

demoBrowserTest(
  "the editor pages raise no CSP violation and load only what they use",
  async (s, browser) => {
    const { page, problems } = await newUserPage(s, browser, "author@example.com", true);
    await listenForViolations(page);
    const vendored: string[] = [];
    page.on("request", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/vendor/cm-")) vendored.push(path.slice("/vendor/cm-".length));
    });

    await page.goto(`${s.url}/dashboard`, { waitUntil: "networkidle" });
    equal(vendored.join(" "), "", "no editor code off the editor pages");

    await page.goto(`${s.url}/templates/new`, { waitUntil: "networkidle" });
    await fillEditor(page, "t-body", "SELECT 1 AS one\nFROM seed\nWHERE 1 = 1");
    await fillEditor(page, "t-body", "SELECT 2 AS two");
    await page.keyboard.press("Control+f");
    await page.locator(".cm-search").waitFor();
    equal(await page.inputValue("#t-body"), "SELECT 2 AS two", "typed over the selection");
    deepEqual(await violations(page), []);
    ok(vendored.includes("codemirror-lang-sql.js"), vendored.join(" "));
    ok(!vendored.some((f) => f.includes("json")), `the template editor has no JSON: ${vendored}`);

    vendored.length = 0;
    await page.goto(`${s.url}/pipelines/new`, { waitUntil: "networkidle" });
    await fillEditor(page, "n-0-sql", "SELECT 3 AS three\nFROM seed");
    await fillEditor(page, "n-0-sql", "SELECT 4 AS four");
    await page.click("#tab-json");
    await page.locator("#p-spec + .editor-host .cm-content").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" ");
    deepEqual(await violations(page), []);
    ok(vendored.includes("codemirror-lang-json.js"), vendored.join(" "));

    // The listener hears a violation when there is one.
    await page.evaluate(() => document.body.setAttribute("style", "outline: 1px solid red"));
    await page.waitForFunction(() =>
      // deno-lint-ignore no-explicit-any
      (globalThis as any).cspViolations.length > 0
    );
    const heard = await violations(page);
    equal(heard.length, 1, heard.join("; "));
    ok(heard[0].startsWith("style-src-attr"), heard[0]);
    deepEqual(problems.filter((p) => !p.includes("Content Security Policy")), []);
  },
);
