/**
 * Every signed-in page in a real browser, as the super admin and as a view-only member of the
 * demo: no console error, no serious accessibility violation in either theme, and the viewer
 * sees Run but none of the controls their role does not hold — which the partials refuse too.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser } from "../access_fixtures.ts";
import {
  accessibilityProblems,
  browserTest,
  launchBrowser,
  signIn,
  watchConsole,
} from "../browser.ts";
import { startTestServer, type TestServer } from "../harness.ts";

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
];

async function pipelineHref(page: Page, base: string, title: string): Promise<string> {
  await page.goto(`${base}/pipelines?prefix=demo/`);
  return (await page.locator(`a.title:has-text("${title}")`).getAttribute("href"))!;
}

async function checkPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => document.documentElement.dataset.theme = t, theme);
    deepEqual(await accessibilityProblems(page), [], `${url} (${theme})`);
  }
}

async function withServer(fn: (s: TestServer) => Promise<void>) {
  const server = await startTestServer({
    env: {
      SERVICE_DEMO_ENABLED: "true",
      SERVICE_AUTH_LOCAL_ENABLED: "true",
      SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "root@example.com",
    },
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

browserTest(
  "every page renders cleanly for a super admin and for a viewer",
  () =>
    withServer(async (s) => {
      const browser = await launchBrowser();
      try {
        const admin = await createUser(s.runtime, "boss@example.com", { isAdmin: true });
        const viewer = await createUser(s.runtime, "looker@example.com");
        for (const user of [admin, viewer]) {
          const page = await (await browser.newContext()).newPage();
          const problems = watchConsole(page);
          await signIn(page, s.url, user.email, user.password);
          const report = await pipelineHref(page, s.url, "Revenue against target");
          for (const path of [...PAGES, report, `${report}/run`]) {
            await checkPage(page, s.url + path);
          }
          deepEqual(problems, [], user.email);
        }
      } finally {
        await browser.close();
      }
    }),
);

browserTest(
  "a viewer may run what they read, and sees no control their role lacks",
  () =>
    withServer(async (s) => {
      const browser = await launchBrowser();
      try {
        const viewer = await createUser(s.runtime, "looker@example.com");
        const page = await browser.newPage();
        await signIn(page, s.url, viewer.email, viewer.password);
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
      } finally {
        await browser.close();
      }
    }),
);
