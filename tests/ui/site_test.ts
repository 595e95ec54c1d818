/**
 * The public site in a real browser, one server and one browser for the file: every public page
 * (the landing page, sign-in, each site page, each docs page, the error codes and both kinds of
 * not found) without console errors or serious accessibility problems in either theme; the
 * header of a signed-in reader; the site's navigation on a phone.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { listDocs } from "../../src/docs/mod.ts";
import { MARKETING_FOLDERS, MARKETING_PAGES } from "../../src/http/public_paths.ts";
import { createUser } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  userPage,
  watchConsole,
  withBrowser,
} from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

const PHONE = { width: 390, height: 844 };
// Unknown pages where no sign-in is asked: the site's own not-found page and the docs' one.
const NOT_FOUND = ["/compare/nobody", "/docs/no-such-doc"];

/** Every public page by its path: what the site's routes serve, listed from the same sources. */
async function publicPages(): Promise<string[]> {
  const folders: string[] = [];
  for (const folder of MARKETING_FOLDERS) {
    for await (const f of Deno.readDir(new URL(`../../ui/site${folder}`, import.meta.url))) {
      if (f.name.endsWith(".md")) folders.push(folder + f.name.slice(0, -3));
    }
  }
  const docs = (await listDocs()).map((d) => `/docs/${d.id}`);
  // `/docs/errors` is among the docs: a Set keeps the largest page from being judged twice.
  return [...new Set(["/", "/login", ...MARKETING_PAGES, ...folders, "/docs", ...docs])];
}

/** How much wider than the window the page is (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
}

browserTest(
  "the public site, signed out and signed in, on a laptop and a phone",
  (t) =>
    withBrowser(
      startTestServer({ env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } }),
      async (server: TestServer, browser: Browser) => {
        await t.step(
          "every public page and both not-found pages pass axe in both themes",
          async () => {
            const page = await browser.newPage();
            const problems = watchConsole(page);
            // The links work as a visitor follows them.
            await page.goto(`${server.url}/`);
            await page.click(".public-nav >> text=Docs");
            await page.click(".article-nav >> text=Published endpoints");
            await page.waitForURL("**/docs/endpoints");
            const pages = await publicPages();
            ok(pages.length > 30, `${pages.length} pages: the list is not the site`);
            for (const path of pages) {
              const res = await page.goto(server.url + path);
              equal(res?.status(), 200, path);
              await accessibleInBothThemes(page, path);
            }
            for (const path of NOT_FOUND) {
              const res = await page.goto(server.url + path);
              equal(res?.status(), 404, path);
              // Someone signed out is led back to the start, not to a dashboard asking sign-in.
              equal(await page.locator("main a[href='/']").textContent(), "Back to the start");
              equal(await page.locator("main a[href='/dashboard']").count(), 0, path);
              await accessibleInBothThemes(page, path);
            }
            // Only the not-found pages' own statuses, as the browser reports them.
            deepEqual(problems.filter((p) => !/\b404\b/.test(p)), []);
            await page.close();
          },
        );

        await t.step(
          "a signed-in reader of the docs sees their name, which leads to the app",
          async () => {
            const user = await createUser(server.runtime, "dana.reader@example.com");
            await server.runtime.db.execute("UPDATE users SET theme = 'dark' WHERE id = $1", [
              user.id,
            ]);
            const { page, problems } = await userPage(browser, server.url, user);
            for (const path of ["/docs", "/docs/endpoints", "/docs/errors", "/faq"]) {
              await page.goto(server.url + path);
              equal(await page.locator("header a:has-text('Sign in')").count(), 0, path);
              const account = page.locator("header a.public-account");
              equal(await account.getAttribute("href"), "/dashboard", path);
              equal(await account.locator(".name").textContent(), "dana.reader", path);
              // Their theme, as in the app: no flash of another one on the way to the docs.
              equal(await page.locator("html").getAttribute("data-theme"), "dark", path);
            }
            await accessibleInBothThemes(page, "docs, signed in");
            await Promise.all([page.waitForURL("**/dashboard"), page.click("a.public-account")]);
            deepEqual(problems, []);
            // Signed out again, the page drawn for everyone says "Sign in" (no one's name is cached).
            const anonymous = await browser.newPage();
            await anonymous.goto(`${server.url}/faq`);
            equal(await anonymous.locator("header a.btn:has-text('Sign in')").count(), 1);
            equal(await anonymous.locator(".public-account").count(), 0);
            await page.context().close();
            await anonymous.close();
          },
        );

        await t.step(
          "on a phone the site's links fold behind a menu, and nothing is too wide",
          async () => {
            const page = await browser.newPage({ viewport: PHONE });
            const problems = watchConsole(page);
            for (const path of ["/", "/how-it-works", "/docs", "/docs/endpoints", "/docs/errors"]) {
              await page.goto(server.url + path);
              equal(await overflow(page), 0, `${path} at 390 px is wider than the window`);
            }
            await page.goto(`${server.url}/docs/endpoints`);
            const toggle = page.locator(".public-top .nav-toggle");
            const pricing = page.locator(".public-nav a:has-text('Pricing')");
            ok(await pricing.isHidden());
            equal(await toggle.getAttribute("aria-expanded"), "false");
            await toggle.click();
            equal(await toggle.getAttribute("aria-expanded"), "true");
            await pricing.waitFor();
            equal(await overflow(page), 0, "the open menu");
            await accessibleInBothThemes(page, "the site's open menu");
            await page.keyboard.press("Escape");
            ok(await pricing.isHidden());
            await toggle.click();
            await Promise.all([page.waitForURL("**/pricing"), pricing.click()]);
            // The docs' own list of pages is still there, after the page.
            await page.goto(`${server.url}/docs/endpoints`);
            ok(await page.locator(".article-nav a:has-text('Error codes')").isVisible());
            deepEqual(problems, []);
            await page.close();

            // Without the script the button could not open anything: the links stay drawn.
            const plain = await browser.newPage({ viewport: PHONE, javaScriptEnabled: false });
            await plain.goto(`${server.url}/docs`);
            ok(await plain.locator(".public-top .nav-toggle").isHidden());
            ok(await plain.locator(".public-nav a:has-text('Pricing')").isVisible());
            equal(await overflow(plain), 0, "the drawn links without the script");
            await plain.close();
          },
        );

        await t.step("a docs page's code blocks and tables scroll inside themselves", async () => {
          const page = await browser.newPage({ viewport: { width: 360, height: 800 } });
          for (const path of ["/docs/endpoints", "/docs/ui", "/docs/errors"]) {
            await page.goto(server.url + path);
            equal(await overflow(page), 0, `${path} at 360 px`);
          }
          await page.goto(`${server.url}/docs/endpoints`);
          // The wide ones scroll: the page's width held, the text still all there.
          const wide = await page.evaluate(() =>
            [...document.querySelectorAll("pre, .table-scroll")]
              .filter((e) => e.scrollWidth > e.clientWidth).length
          );
          ok(wide > 0, "no code block or table is wider than a phone: the check proves nothing");
          await page.close();
        });
      },
    ),
);
