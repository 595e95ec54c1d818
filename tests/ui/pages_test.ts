/**
 * Every signed-in page in a real browser, as the super admin and as a view-only member of the
 * demo: no console error, no serious accessibility violation in either theme, and the viewer
 * sees Run but none of the controls their role does not hold — which the partials refuse too.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  demoBrowserTest,
  newUserPage,
  userPage,
} from "../support/browser.ts";

const PAGES = [
  "/dashboard",
  "/pipelines",
  "/pipelines?prefix=demo/",
  "/pipelines?q=customers",
  "/templates",
  "/templates?prefix=demo/shop/",
  "/templates/view?id=demo/shop/revenue_by_country",
  "/datasources",
  "/datasources/demo_shop",
  "/runs",
  "/settings/api-keys",
];

/** Pages only an author opens. The pipeline editor's sweep is pipeline_form_test.ts's. */
const AUTHOR_PAGES = [
  "/endpoints",
  "/templates/edit?id=demo/shop/revenue_by_country",
  "/datasources/demo_shop/edit",
];

async function pipelineHref(page: Page, base: string, title: string): Promise<string> {
  await page.goto(`${base}/pipelines?prefix=demo/`);
  return (await page.locator(`a.title:has-text("${title}")`).getAttribute("href"))!;
}

demoBrowserTest(
  "every page renders cleanly for a super admin and for a viewer",
  async (s, browser) => {
    const admin = await createUser(s.runtime, "boss@example.com", { isAdmin: true });
    const viewer = await createUser(s.runtime, "looker@example.com");
    for (const user of [admin, viewer]) {
      const { page, problems } = await userPage(browser, s.url, user);
      const report = await pipelineHref(page, s.url, "Revenue against target");
      // Endpoints and the editors are an author's pages: the viewer's refusals are
      // tests/ui/endpoints_page_test.ts's and version_guards_test.ts's.
      const own = user === admin ? AUTHOR_PAGES : [];
      for (const path of [...PAGES, ...own, report, `${report}/run`, `${report}/compare`]) {
        await page.goto(s.url + path);
        await accessibleInBothThemes(page, path);
      }
      deepEqual(problems, [], user.email);
    }
  },
);

demoBrowserTest(
  "a viewer may run what they read, and sees no control their role lacks",
  async (s, browser) => {
    const { page } = await newUserPage(s, browser, "looker@example.com");
    // A first login without membership joins the demo as a viewer (spec 1 §5.2).
    equal(await page.locator("#workspace-switch").inputValue(), "demo");
    const report = await pipelineHref(page, s.url, "Revenue against target");
    await page.goto(s.url + report);
    ok(await page.locator(".page-head a:has-text('Run')").isVisible());
    for (const verb of ["Edit", "Save", "Release", "Discard", "Delete"]) {
      equal(await page.locator(`main :is(a, button):has-text("${verb}")`).count(), 0, verb);
    }
    await page.goto(`${s.url}/datasources/demo_shop`);
    equal(await page.locator("button:has-text('Test connection')").count(), 0);
    equal(await page.locator(".schema-list").count(), 0);

    // The partials behind those controls refuse the viewer just as REST does.
    const csrf = (await page.context().cookies()).find((c) => c.name === "svc_csrf")!.value;
    const refused = await page.evaluate(async (token) => {
      const test = await fetch("/partials/datasources/demo_shop/test", {
        method: "POST",
        headers: { "SVC-CSRF-Token": token },
      });
      const tables = await fetch("/partials/datasources/demo_shop/tables?schema=main");
      return [test.status, tables.status];
    }, csrf);
    deepEqual(refused, [403, 403]);

    // A page that cannot be shown says why in the envelope's words, as a page.
    const missing = await page.goto(`${s.url}/pipelines/${crypto.randomUUID()}`);
    equal(missing?.status(), 404);
    ok((await page.locator("h1").textContent())?.length);
    match(
      await page.locator(".error-page .mono").first().textContent() ?? "",
      /pipeline\.not_found/,
    );
    await accessibleInBothThemes(page, "a pipeline not found");
  },
);
