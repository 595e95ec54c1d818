/** The public site in a real browser: no console errors, no serious accessibility problems. */
import { deepEqual } from "node:assert/strict";
import { listDocs } from "../../src/docs/mod.ts";
import { startTestServer } from "../support/harness.ts";
import {
  accessibilityProblems,
  browserTest,
  watchConsole,
  withBrowser,
} from "../support/browser.ts";

browserTest(
  "the landing page, a site page and every docs page are clean in both themes",
  () =>
    withBrowser(startTestServer(), async (server, browser) => {
      for (const scheme of ["light", "dark"] as const) {
        const page = await browser.newPage({ colorScheme: scheme });
        const problems = watchConsole(page);
        await page.goto(`${server.url}/`);
        await page.click(".public-nav >> text=How it works");
        await page.waitForURL("**/how-it-works");
        deepEqual(await accessibilityProblems(page), [], `how-it-works (${scheme})`);
        await page.click(".public-nav >> text=Docs");
        await page.click(".article-nav >> text=Published endpoints");
        await page.waitForURL("**/docs/endpoints");
        const docsProblems = await accessibilityProblems(page);
        deepEqual(docsProblems, [], `docs (${scheme}): ${docsProblems.join("; ")}`);
        // Every docs page: they are written by many hands, in Markdown, and grow every week.
        for (const doc of await listDocs()) {
          await page.goto(`${server.url}/docs/${doc.id}`);
          const found = await accessibilityProblems(page);
          deepEqual(found, [], `docs/${doc.id} (${scheme}): ${found.join("; ")}`);
        }
        await page.goto(`${server.url}/`);
        deepEqual(await accessibilityProblems(page), [], `landing (${scheme})`);
        deepEqual(problems, []);
        await page.close();
      }
    }),
);
