/**
 * Issue 23's "an administrator never needs curl", as one journey through the pages: a super admin
 * issues an endpoint key, publishes the demo report from its page, binds the key, invites a member
 * by email and creates a local user; then the audit page shows each of those acts, by event, with
 * the super admin as the actor. Every act here is a click in the browser; nothing is called by
 * hand.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { demoBrowserTest, userPage } from "../support/browser.ts";
import { createUser } from "../support/access_fixtures.ts";

const PATTERN = "/journey/top-customers/{country}";

/** The events of the audit page's rows, as the page shows them. */
const eventsShown = async (page: Page) =>
  (await page.locator("tbody tr td:nth-child(2)").allTextContents()).map((e) => e.trim());

demoBrowserTest(
  "issue 23: key, publish, bind, invite and a local user done in the browser, each on the audit page",
  async (s, browser) => {
    const root = await createUser(s.runtime, "chief@example.com", { isAdmin: true });
    const { page, problems } = await userPage(browser, s.url, root);

    // An endpoint key from the keys page.
    await page.goto(`${s.url}/settings/api-keys`);
    await page.fill("#key-name", "journey feed");
    await page.selectOption("#key-kind", "endpoint");
    await page.click("button:has-text('Create key')");
    ok((await page.locator("#issued-secret").innerText()).trim().length > 20);

    // Publish the demo report from its page.
    await page.goto(`${s.url}/pipelines?prefix=demo/`);
    await page.click("text=Top customers (report)");
    await page.click("a:has-text('Publish as endpoint')");
    await page.fill("#publish-path", PATTERN);
    await page.click("button:has-text('Publish')");
    await page.waitForURL("**/endpoints/view?**");

    // Bind the key on the Endpoints page.
    await page.goto(`${s.url}/endpoints`);
    await page.selectOption("#bind-key", "journey feed");
    await page.fill("#bind-path", "/journey");
    await page.click("button:has-text('Bind')");
    await page.waitForURL(/bound=/);

    // Invite someone with no account yet.
    await page.goto(`${s.url}/workspace`);
    await page.fill("#add-email", "newcomer@example.com");
    await page.check("#add-author");
    await Promise.all([page.waitForURL(/done=/), page.click("text=Add member")]);
    match(await page.locator("main").innerText(), /newcomer@example\.com/);

    // A local user, with its one-time password shown once.
    await page.goto(`${s.url}/admin/users/new`);
    await page.fill("#user-email", "local.one@example.com");
    await page.fill("#user-display-name", "Local One");
    await page.click("button:has-text('Create user')");
    await page.locator("#one-time-password").waitFor();

    // The audit page, the instance's trail: each act by its event, done by the super admin.
    await page.goto(`${s.url}/audit?actor=${root.id}`);
    const shown = await eventsShown(page);
    for (
      const event of [
        "auth.api_key.created",
        "endpoint.published",
        "endpoint.key_bound",
        "workspace.member_invited",
        "auth.user.created",
      ]
    ) {
      ok(shown.includes(event), `${event} among ${shown.join(", ")}`);
    }
    // The trail holds no secret: neither the key's nor the one-time password.
    const text = await page.locator("main").innerText();
    equal(/svc_[A-Za-z0-9]{20,}/.test(text), false);
    deepEqual(problems, []);
  },
);
