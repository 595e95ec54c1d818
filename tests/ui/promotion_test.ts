/**
 * Promotion from a pipeline's page in a real browser (issue 23 item 9), between two real
 * instances: a development one whose promotion target is a hardened production one. A promoter
 * previews a release, pushes it behind a confirmation and reads what arrived; a newer release that
 * breaks production's endpoint callers is flagged before the push; pushing what production has is
 * refused on the entry, with its code. An author sees no Promote and the partial refuses them.
 */
import { deepEqual, equal, match } from "node:assert/strict";
import { sessionHeaders } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  launchBrowser,
  userPage,
} from "../support/browser.ts";
import type { Json } from "../support/harness.ts";
import { HARDENED, inventory, release, template, withPair } from "../support/promotion_client.ts";

const orders = (customerType: string) => ({
  name: "shop/orders",
  display_name: "Orders of a customer",
  parameters: { customer_id: { type: customerType, required: true } },
  nodes: [{ id: "orders", type: "DQL", source: "wh", template: { id: "lib/orders", version: 1 } }],
});

browserTest(
  "issue 23 item 9: a promoter previews, pushes and reads the outcome; breaking changes come first",
  () =>
    withPair(
      "sqlite",
      async ({ prod, dev, key }) => {
        const browser = await launchBrowser();
        try {
          await template(
            dev,
            "lib/orders",
            "SELECT id, amount FROM orders WHERE id = :customer_id",
          );
          const p = await release(dev, orders("integer"));
          const published = await dev.req("POST", "/api/v1/endpoints", dev.admin, {
            path_pattern: "/shop/orders/{customer_id}",
            pipeline_id: p.id,
          });
          equal(published.status, 201, JSON.stringify(published.body));

          const { page, problems } = await userPage(browser, dev.s.url, dev.f.users.promoter);
          const pipelinePage = `${dev.s.url}/pipelines/${p.id}`;
          await page.goto(pipelinePage);
          await Promise.all([
            page.waitForURL(`**/pipelines/${p.id}/promote`),
            page.click(".page-head a:has-text('Promote v1')"),
          ]);

          // The preview: every entry new on production, nothing breaking, nothing sent yet.
          match(await page.locator("h1").innerText(), /Promote to production/);
          const tables = page.locator("table.promote-table");
          match(await tables.nth(0).innerText(), /shop\/orders\s+none → v1\s+new/);
          match(await tables.nth(1).innerText(), /lib\/orders\s+none → v1\s+new/);
          match(
            await tables.nth(2).innerText(),
            /\/shop\/orders\/\{customer_id\}\s+shop\/orders\s+new/,
          );
          equal(await page.locator(".breaking-banner").count(), 0);
          await accessibleInBothThemes(page, "promote preview");

          // Push asks first and says where and how much; Cancel sends nothing.
          await page.click(".page-head a:has-text('Push to production')");
          const dialog = page.locator("dialog[open]");
          await dialog.waitFor();
          match(
            await dialog.innerText(),
            /Push shop\/orders v1 to production\?[\s\S]*1 pipeline version, 1 template version and 1 endpoint change/,
          );
          await accessibleInBothThemes(page, "promote push dialog");
          await dialog.locator("a:has-text('Cancel')").click();
          await dialog.waitFor({ state: "hidden" });
          deepEqual((await inventory(prod, key)).pipelines, []);

          await page.click(".page-head a:has-text('Push to production')");
          await Promise.all([
            page.waitForURL(`**/partials/pipelines/${p.id}/promote`),
            page.locator("dialog[open] button:has-text('Push to production')").click(),
          ]);
          match(
            await page.locator("[role=status]").innerText(),
            /Pushed shop\/orders v1 to production, where it is new\. Production applied 1 pipeline version, 1 template version and 1 endpoint change\./,
          );
          match(await tables.nth(0).innerText(), /shop\/orders\s+none → v1\s+created/);
          match(
            await tables.nth(2).innerText(),
            /\/shop\/orders\/\{customer_id\}\s+shop\/orders\s+created/,
          );
          await accessibleInBothThemes(page, "promote outcome");
          const inv = await inventory(prod, key);
          deepEqual(inv.pipelines.map((x: Json) => [x.name, x.current_version]), [[
            "shop/orders",
            1,
          ]]);
          deepEqual(inv.endpoints, [{
            path_pattern: "/shop/orders/{customer_id}",
            pipeline_name: "shop/orders",
          }]);

          // v2 retypes the parameter production's endpoint binds: flagged before anything else.
          await release(dev, orders("string"), p.id);
          await page.goto(pipelinePage);
          await page.click(".page-head a:has-text('Promote v2')");
          const banner = page.locator(".breaking-banner");
          await banner.waitFor();
          match(
            await banner.innerText(),
            /Breaking changes[\s\S]*shop\/orders v1 → v2\s+parameter customer_id retyped from integer to string/,
          );
          match(
            await tables.nth(0).innerText(),
            /shop\/orders\n[\s\S]*\tv1 → v2\tupdated breaking/,
          );
          match(await tables.nth(1).innerText(), /lib\/orders\s+v1 → v1\s+already there/);
          await accessibleInBothThemes(page, "promote preview, breaking");
          await page.click(".page-head a:has-text('Push to production')");
          await dialog.waitFor();
          match(
            await dialog.innerText(),
            /This breaks the callers[\s\S]*shop\/orders: customer_id retyped from integer to string/,
          );
          await Promise.all([
            page.waitForURL(`**/partials/pipelines/${p.id}/promote`),
            dialog.locator("button[type=submit]").click(),
          ]);
          match(
            await page.locator("[role=status]").innerText(),
            /v2 to production, which had v1\./,
          );

          // What production has now is not newer: refused on the entry, with its code.
          await page.goto(pipelinePage);
          await page.click(".page-head a:has-text('Promote v2')");
          const refusal = page.locator(".promote-refusal");
          await refusal.waitFor();
          match(
            await refusal.locator(".refusal-code").innerText(),
            /^pipeline\.promotion\.not_newer$/,
          );
          match(await refusal.innerText(), /pipeline shop\/orders: v2 here, v2 on production/);
          equal(await page.locator("a:has-text('Push to')").count(), 0);
          await accessibleInBothThemes(page, "promote refused");
          // The refused preview is the only failed request: 409, as its REST twin answers it (the
          // response and chromium's console line about it).
          deepEqual(
            problems.filter((x) =>
              !/^409 GET .*\/promote$/.test(x) && !/status of 409 \(Conflict\)$/.test(x)
            ),
            [],
          );
          equal(problems.length, 2, problems.join("\n"));

          // An author (no promoter flag) sees no Promote, and the partial refuses them.
          const author = await userPage(browser, dev.s.url, dev.f.users.author);
          await author.page.goto(pipelinePage);
          await author.page.locator(".page-head a:has-text('Edit')").waitFor();
          equal(await author.page.locator("a:has-text('Promote')").count(), 0);
          deepEqual(author.problems, []);
          const res = await dev.s.fetch(`/partials/pipelines/${p.id}/promote`, {
            method: "POST",
            headers: {
              ...await sessionHeaders(dev.s.runtime, dev.f.users.author, "acme"),
              "content-type": "application/x-www-form-urlencoded",
            },
            body: "",
          });
          equal(res.status, 403);
          match(await res.text(), /auth\.role_required/);
        } finally {
          await browser.close();
        }
      },
      HARDENED,
      { SERVICE_AUTH_LOCAL_ENABLED: "true" },
    ),
);
