/**
 * The users pages in a real browser (issue 23 item 4): a super admin finds users by name and
 * page, creates a local user whose one-time password is shown once and never lands in an address,
 * a log or a reload, and that user signs in with it, must change it, and lands in the workspace
 * they were put in. On a user's page, unlock, reset password, disable local sign-in, deactivate
 * and grant super admin each ask first, say what they change, and do it.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { seedRoles, TEST_PASSWORD } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  confirmAct,
  userPage,
  watchConsole,
  withBrowser,
} from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/harness.ts";

/** A fresh page (own cookies) that tries the login form; answers where it ended up. */
async function tryLogin(browser: Browser, url: string, email: string, password: string) {
  const page = await browser.newPage();
  await page.goto(`${url}/login`);
  await page.fill("input[name=email]", email);
  await page.fill("input[name=password]", password);
  await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
  return page;
}

function withWorld(fn: (s: TestServer, b: Browser) => Promise<void>) {
  // Local sign-in, and room for the dozens of sign-ins below within the per-address limit.
  const env = {
    SERVICE_AUTH_LOCAL_ENABLED: "true",
    SERVICE_AUTH_RATE_LIMIT_LOGIN_PER_MINUTE: "500",
  };
  return withBrowser(startTestServer({ env }), fn);
}

const rowOf = (page: Page, email: string) =>
  page.locator("#user-list tbody tr", { hasText: email });

browserTest(
  "issue 23 item 4: a local user made on the page signs in with the password shown once, changes it and lands",
  () =>
    withWorld(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.super_admin);

      // The nav leads a super admin to the list: every user, searched, paged.
      await page.click(".sidenav a:has-text('Users')");
      await page.waitForURL("**/admin/users");
      match(await rowOf(page, "viewer@acme.example").innerText(), /viewer[\s\S]*active/);
      match(await rowOf(page, "super-admin@acme.example").innerText(), /super admin/);
      await accessibleInBothThemes(page, "users");
      await page.fill("input[name=q]", "PROMOTER");
      await Promise.all([page.waitForURL(/q=PROMOTER/), page.click("button:has-text('Search')")]);
      deepEqual(
        await page.locator("#user-list tbody tr .muted").allInnerTexts(),
        ["promoter@acme.example"],
      );
      await page.goto(`${server.url}/admin/users?limit=2`);
      const total = await server.runtime.users.list(undefined, 0, 1).then((l) => l.total);
      match(await page.locator(".pager").innerText(), new RegExp(`1–2 of ${total}`));
      await page.click(".pager a:has-text('Next')");
      match(await page.locator(".pager").innerText(), new RegExp(`3–4 of ${total}`));

      // A refusal lands on its field, keeping what was typed.
      await page.goto(`${server.url}/admin/users`);
      await page.click("a:has-text('New local user')");
      await page.waitForURL("**/admin/users/new");
      await accessibleInBothThemes(page, "new local user");
      await page.fill("#user-email", "Viewer@Acme.example");
      await page.fill("#user-display-name", "Second Viewer");
      await page.click("button:has-text('Create user')");
      match(await page.locator("#user-email-error").innerText(), /already in use/);
      equal(await page.inputValue("#user-display-name"), "Second Viewer");

      await page.fill("#user-email", "New.Person@Example.com");
      await page.fill("#user-display-name", "New Person");
      await page.selectOption("#user-workspace", "acme");
      await page.check("#user-author");
      await page.click("button:has-text('Create user')");
      const password = (await page.locator("#one-time-password").innerText()).trim();
      match(password, /^[A-Za-z0-9_-]{20}$/);
      match(await page.locator("#create-slot").innerText(), /shown only this once[\s\S]*acme/);
      await accessibleInBothThemes(page, "new local user, password shown");
      ok(!page.url().includes(password), "the address never holds the password");
      await page.reload();
      ok(!(await page.content()).includes(password), "a reload shows it no more");
      ok(!server.logs.join("\n").includes(password), "no log line holds it");
      await page.goto(`${server.url}/admin/users`);
      await page.goBack();
      ok(!(await page.content()).includes(password), "Back shows it no more");

      // The new user: listed, and the password signs them in to the forced change, then acme.
      await page.goto(`${server.url}/admin/users?q=new.person`);
      match(await rowOf(page, "new.person@example.com").innerText(), /must change password/);
      const fresh = await tryLogin(browser, server.url, "new.person@example.com", password);
      const freshProblems = watchConsole(fresh);
      equal(new URL(fresh.url()).pathname, "/settings/password");
      await fresh.goto(`${server.url}/dashboard`);
      equal(new URL(fresh.url()).pathname, "/settings/password", "no page before the change");
      await fresh.fill("input[name=current_password]", password);
      await fresh.fill("input[name=new_password]", "a-password-of-my-own");
      await Promise.all([fresh.waitForURL("**/dashboard"), fresh.click("button[type=submit]")]);
      equal(await fresh.locator("#workspace-switch").inputValue(), "acme");
      equal(await fresh.locator(".sidenav a:has-text('Users')").count(), 0);
      await page.reload();
      equal(await rowOf(page, "new.person@example.com").locator(".badge.warn").count(), 0);
      deepEqual(freshProblems, []);
      // Only the refusal above, answered 409 as the partial's REST twin would.
      deepEqual(problems.filter((p) => !/\b409\b/.test(p)), []);
    }),
);

browserTest(
  "issue 23 item 4: unlock, reset password, disable local sign-in, deactivate and grant super admin from a user's page",
  () =>
    withWorld(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const viewer = acme.users.viewer;
      // Five wrong passwords lock the viewer out; even the right one is refused then.
      for (let i = 0; i < 5; i++) {
        const tried = await tryLogin(browser, server.url, viewer.email, "not the password");
        await tried.close();
      }
      const refused = await tryLogin(browser, server.url, viewer.email, TEST_PASSWORD);
      match(refused.url(), /error=locked/);

      const { page, problems } = await userPage(browser, server.url, acme.users.super_admin);
      await page.goto(`${server.url}/admin/users?q=viewer`);
      await page.click("a.title:has-text('viewer')");
      await page.waitForURL(`**/admin/users/${viewer.id}`);
      match(await page.locator(".facts").innerText(), /locked[\s\S]*Locked until/);
      match(
        await page.locator(".card:has(h2:has-text('Workspaces'))").innerText(),
        /Acme[\s\S]*viewer/,
      );
      await accessibleInBothThemes(page, "user page");

      // Unlock: the dialog says what changes; Cancel does nothing, confirming unlocks.
      await page.click(".user-acts a:has-text('Unlock')");
      const dialog = page.locator("dialog[open]");
      match(await dialog.innerText(), /Unlock viewer\?[\s\S]*5 failed sign-ins[\s\S]*unchanged/);
      await accessibleInBothThemes(page, "unlock dialog");
      await dialog.locator("a:has-text('Cancel')").click();
      await dialog.waitFor({ state: "hidden" });
      await confirmAct(page, ".user-acts a:has-text('Unlock')");
      await page.locator(".user-outcome:has-text('Account unlocked')").waitFor();
      equal(await page.locator(".facts .badge.warn").count(), 0);
      const back = await tryLogin(browser, server.url, viewer.email, TEST_PASSWORD);
      equal(new URL(back.url()).pathname, "/dashboard");

      // Reset: a new one-time password, shown once, that signs in to the forced change.
      await page.click(".user-acts a:has-text('Reset password')");
      match(await dialog.innerText(), /shown to you once[\s\S]*current password stops working/);
      await dialog.locator("button[type=submit]").click();
      const password = (await page.locator("#one-time-password").innerText()).trim();
      ok(!page.url().includes(password));
      match(await page.locator(".facts").innerText(), /must change password/);
      await accessibleInBothThemes(page, "user page, password shown");
      const old = await tryLogin(browser, server.url, viewer.email, TEST_PASSWORD);
      match(old.url(), /error=credentials/);
      const forced = await tryLogin(browser, server.url, viewer.email, password);
      equal(new URL(forced.url()).pathname, "/settings/password");
      await page.reload();
      ok(!(await page.content()).includes(password), "a reload shows it no more");

      // Disable local sign-in: the password is cleared, so it signs in no more.
      await confirmAct(page, ".user-acts a:has-text('Disable local sign-in')");
      await page.locator(".user-outcome:has-text('Local sign-in disabled')").waitFor();
      match(await page.locator(".facts").innerText(), /local sign-in disabled/);
      equal(await page.locator(".user-acts a:has-text('Disable local sign-in')").count(), 0);
      const cleared = await tryLogin(browser, server.url, viewer.email, password);
      match(cleared.url(), /error=credentials/);

      // Deactivate the author, whose open session ends with it.
      const author = await userPage(browser, server.url, acme.users.author);
      await page.goto(`${server.url}/admin/users/${acme.users.author.id}`);
      await page.click(".user-acts a:has-text('Deactivate')");
      match(await dialog.innerText(), /can no longer sign in[\s\S]*sessions and API keys/);
      await Promise.all([
        page.waitForURL(/done=deactivate/),
        dialog.locator("button[type=submit]").click(),
      ]);
      match(await page.locator(".user-outcome").innerText(), /author is deactivated/);
      match(await page.locator(".facts").innerText(), /deactivated/);
      await author.page.goto(`${server.url}/dashboard`);
      equal(new URL(author.page.url()).pathname, "/login");
      const inactive = await tryLogin(browser, server.url, acme.users.author.email, TEST_PASSWORD);
      match(inactive.url(), /error=inactive/);

      // Grant super admin to the promoter: the flag shows, and their nav gains Users.
      await page.goto(`${server.url}/admin/users/${acme.users.promoter.id}`);
      await page.click(".user-acts a:has-text('Make super admin')");
      match(await dialog.innerText(), /every capability in every workspace/);
      await Promise.all([
        page.waitForURL(/done=grant-admin/),
        dialog.locator("button[type=submit]").click(),
      ]);
      match(await page.locator(".facts").innerText(), /super admin/);
      const promoter = await userPage(browser, server.url, acme.users.promoter);
      equal(await promoter.page.locator(".sidenav a:has-text('Users')").count(), 1);

      // Revoking one's own flag warns before it acts; Cancel leaves it.
      await page.goto(`${server.url}/admin/users/${acme.users.super_admin.id}`);
      await page.click(".user-acts a:has-text('Revoke super admin')");
      match(await dialog.innerText(), /This is you: you lose this page/);
      await dialog.locator("a:has-text('Cancel')").click();
      equal((await server.runtime.users.get(acme.users.super_admin.id)).is_admin, true);
      deepEqual(problems, []);
    }),
);

browserTest(
  "issue 23 item 4: without JavaScript a local user is created and their password reset from the pages",
  () =>
    withWorld(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.super_admin, {
        javaScriptEnabled: false,
      });
      await page.goto(`${server.url}/admin/users/new`);
      await page.fill("#user-email", "plain@example.com");
      await Promise.all([page.waitForNavigation(), page.click("button:has-text('Create user')")]);
      equal(new URL(page.url()).pathname, "/partials/admin/users");
      const first = (await page.locator("#one-time-password").innerText()).trim();
      await page.click("a:has-text('Open plain')");
      // The dialog is drawn open by its address; its form posts the PATCH partial's POST twin.
      await page.click(".user-acts a:has-text('Reset password')");
      match(page.url(), /confirm=reset-password/);
      await Promise.all([
        page.waitForNavigation(),
        page.click("dialog[open] button[type=submit]"),
      ]);
      const second = (await page.locator("#one-time-password").innerText()).trim();
      ok(second !== first && !page.url().includes(second));
      const forced = await tryLogin(browser, server.url, "plain@example.com", second);
      equal(new URL(forced.url()).pathname, "/settings/password");
      deepEqual(problems, []);
    }),
);
