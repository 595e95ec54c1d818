/**
 * Workspace administration in a real browser (issue 23 item 3): a workspace admin invites someone
 * by email who then gets an account, signs in and lands in the workspace; flags are edited in
 * their row and the last admin's demotion is refused on it; removal and revocation ask first. A
 * super admin creates, deactivates (greyed, with its date) and reactivates workspaces; a
 * workspace admin sees none of that and its partials answer them 403.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { createUser, seedRoles, sessionHeaders } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  confirmAct,
  signIn,
  userPage,
  watchConsole,
  withDemoBrowser,
} from "../support/browser.ts";

const row = (page: Page, email: string) =>
  page.locator("table.members tbody tr", { hasText: email });

browserTest(
  "issue 23 item 3: an invited member signs in into the workspace; flags change in their row, the last admin's refusal on it",
  () =>
    withDemoBrowser(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.ws_admin);
      // The nav leads an admin to their workspace's page, and nowhere a super admin goes.
      equal(await page.locator("nav.sidenav a:has-text('All workspaces')").count(), 0);
      await page.click("nav.sidenav a:has-text('Workspace')");
      await page.waitForURL("**/workspaces/acme");
      match(await page.locator("h1").innerText(), /Acme/);
      await accessibleInBothThemes(page, "workspace page");

      // Add by email, no account yet: the page says an invitation was made and lists it.
      await page.fill("#add-email", "Newbie@Acme.example");
      await page.check("#add-author");
      await Promise.all([page.waitForURL(/done=invited/), page.click("text=Add member")]);
      match(
        await page.locator("[role=status]").innerText(),
        /No account uses newbie@acme\.example yet, so an invitation was created \(as author\)/,
      );
      match(await page.locator("#invitations").innerText(), /newbie@acme\.example[\s\S]*as author/);

      // A flag changed in its row, through htmx: the row comes back saying what it holds now.
      const viewer = row(page, acme.users.viewer.email);
      await viewer.locator("input[name=promoter]").check();
      await viewer.locator("button:has-text('Save')").click();
      await row(page, acme.users.viewer.email).locator("[role=status]").waitFor();
      match(await row(page, acme.users.viewer.email).innerText(), /Saved: promoter\./);
      equal(new URL(page.url()).pathname, "/workspaces/acme");

      // The last admin cannot step down: the refusal is on their row, the box as stored.
      const self = row(page, acme.users.ws_admin.email);
      await self.locator("input[name=admin]").uncheck();
      await self.locator("button:has-text('Save')").click();
      const refusal = row(page, acme.users.ws_admin.email).locator("[role=alert]");
      await refusal.waitFor();
      match(await refusal.innerText(), /without an admin\. \(workspace\.last_admin\)/);
      ok(await row(page, acme.users.ws_admin.email).locator("input[name=admin]").isChecked());
      await accessibleInBothThemes(page, "workspace page, last-admin refusal");

      // Remove asks first and says what is lost; Cancel changes nothing.
      const author = row(page, acme.users.author.email);
      await author.locator("a:has-text('Remove')").click();
      const dialog = page.locator("dialog[open]");
      await dialog.waitFor();
      match(await dialog.innerText(), /Remove author from Acme\?[\s\S]*membership as author/);
      await accessibleInBothThemes(page, "remove dialog");
      await dialog.locator("a:has-text('Cancel')").click();
      await dialog.waitFor({ state: "hidden" });
      equal(await row(page, acme.users.author.email).count(), 1);
      // Opened at its own address (say, in a new tab), the same dialog is shown modal.
      await page.goto(`${server.url}/workspaces/acme?confirm=remove&user=${acme.users.author.id}`);
      await page.locator("dialog[open]").waitFor({ timeout: 5000 });
      ok(await page.locator("dialog[open]").evaluate((d) => d.matches(":modal")));
      await page.locator("dialog[open] a:has-text('Cancel')").click();
      await page.locator("dialog").waitFor({ state: "detached" });
      await Promise.all([
        page.waitForURL(/done=removed/),
        confirmAct(page, `tr:has-text("${acme.users.author.email}") a:has-text('Remove')`),
      ]);
      match(await page.locator("[role=status]").innerText(), /author@acme\.example was removed/);
      equal(await row(page, acme.users.author.email).count(), 0);

      // A super admin gives the invitee a local account (spec 1 §3: the invitation turns into
      // a membership then); they sign in, change the one-time password, and land in acme.
      const root = await createUser(server.runtime, "boss@example.com", { isAdmin: true });
      const created = await server.fetch("/partials/admin/users", {
        method: "POST",
        headers: {
          ...await sessionHeaders(server.runtime, root),
          accept: "application/json",
          "content-type": "application/json",
        },
        body: JSON.stringify({ email: "newbie@acme.example" }),
      }).then((r) => r.json());
      const password = created.data.one_time_password;
      const invitee = await browser.newPage();
      const inviteeProblems = watchConsole(invitee);
      await signIn(invitee, server.url, "newbie@acme.example", password);
      equal(new URL(invitee.url()).pathname, "/settings/password");
      await invitee.fill("input[name=current_password]", password);
      await invitee.fill("input[name=new_password]", "a-newbie-password-123");
      await Promise.all([invitee.waitForURL("**/dashboard"), invitee.click("button[type=submit]")]);
      equal(await invitee.locator("#workspace-switch").inputValue(), "acme");
      // An author, as invited: no Workspace entry, since they administer nothing.
      equal(await invitee.locator("nav.sidenav a:has-text('Workspace')").count(), 0);
      deepEqual(inviteeProblems, []);

      await page.goto(`${server.url}/workspace`);
      match(await row(page, "newbie@acme.example").innerText(), /newbie/);
      ok(await row(page, "newbie@acme.example").locator("input[name=author]").isChecked());
      match(await page.locator("#invitations").innerText(), /No one is invited/);

      // A second invitation, revoked behind its dialog.
      await page.fill("#add-email", "later@acme.example");
      await Promise.all([page.waitForURL(/done=invited/), page.click("text=Add member")]);
      await Promise.all([
        page.waitForURL(/done=revoked/),
        confirmAct(page, "#invitations a:has-text('Revoke')"),
      ]);
      match(await page.locator("#invitations").innerText(), /No one is invited/);

      // Settings: the display name, which the switcher shows too.
      await page.fill("#ws-display-name", "Acme Corp");
      await Promise.all([page.waitForURL(/done=settings/), page.click("text=Save settings")]);
      match(await page.locator("#workspace-switch option[value=acme]").innerText(), /Acme Corp/);
      await accessibleInBothThemes(page, "workspace page, settings saved");
      // Only the last admin's refusal, answered 409 as its REST twin answers it.
      deepEqual(problems.filter((p) => !/\b409\b/.test(p)), []);
      ok(problems.some((p) => /^409 POST .*\/flags$/.test(p)), problems.join("\n"));
    }),
);

browserTest(
  "issue 23 item 3: a super admin creates, deactivates and reactivates workspaces; a workspace admin sees none of it and gets 403",
  () =>
    withDemoBrowser(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.super_admin);
      await page.click("nav.sidenav a:has-text('All workspaces')");
      await page.waitForURL("**/admin/workspaces");
      match(await page.locator("#workspace-list").innerText(), /acme[\s\S]*demo/);
      await accessibleInBothThemes(page, "all workspaces");

      // A name outside the grammar is refused on its field, the form keeping what was typed.
      await page.fill("#new-ws-name", "Sales Team");
      await page.click("text=Create workspace");
      await page.locator("#new-ws-name-error").waitFor();
      equal(await page.inputValue("#new-ws-name"), "Sales Team");
      await accessibleInBothThemes(page, "all workspaces, refused name");
      await page.fill("#new-ws-name", "sales");
      await page.fill("#new-ws-display-name", "Sales");
      await Promise.all([page.waitForURL(/done=created/), page.click("text=Create workspace")]);
      const sales = page.locator("#workspace-list tr", { hasText: "sales" });
      match(await sales.innerText(), /Sales[\s\S]*active/);

      // Deactivate asks first and says what stops; then the row is greyed with the date.
      await sales.locator("a:has-text('Deactivate')").click();
      const dialog = page.locator("dialog[open]");
      await dialog.waitFor();
      match(await dialog.innerText(), /Deactivate Sales\?[\s\S]*endpoints answer 404/);
      await dialog.locator("button:has-text('Deactivate workspace')").click();
      await page.waitForURL(/done=deactivated/);
      const today = new Date().toISOString().slice(0, 10);
      equal(await sales.getAttribute("class"), "deactivated");
      match(await sales.innerText(), new RegExp(`deactivated ${today}`));
      // It can no longer be selected.
      equal(await page.locator("#workspace-switch option[value=sales]").count(), 0);
      await accessibleInBothThemes(page, "all workspaces, one deactivated");
      await Promise.all([
        page.waitForURL(/done=reactivated/),
        sales.locator("button:has-text('Reactivate')").click(),
      ]);
      match(await sales.innerText(), /active/);
      equal(await page.locator("#workspace-switch option[value=sales]").count(), 1);
      // The refused name above, answered 400 as REST answers it.
      deepEqual(problems.filter((p) => !/\b400\b/.test(p)), []);

      // A workspace admin: no such nav entry, the page refused, the partials 403 when called.
      const admin = await userPage(browser, server.url, acme.users.ws_admin);
      equal(await admin.page.locator("nav.sidenav a:has-text('All workspaces')").count(), 0);
      await admin.page.goto(`${server.url}/workspaces/acme`);
      equal(
        await admin.page.locator("main :text-matches('deactivate|create workspace', 'i')").count(),
        0,
      );
      const refused = await admin.page.goto(`${server.url}/admin/workspaces`);
      equal(refused?.status(), 403);
      const csrf = (await admin.page.context().cookies()).find((c) => c.name === "svc_csrf")!.value;
      const statuses = await admin.page.evaluate(async (token) => {
        const calls = [
          ["/partials/admin/workspaces", "name=mine"],
          ["/partials/admin/workspaces/acme/deactivate", ""],
          ["/partials/admin/workspaces/sales/reactivate", ""],
        ];
        const out = [];
        for (const [path, body] of calls) {
          const res = await fetch(path, {
            method: "POST",
            headers: {
              "SVC-CSRF-Token": token,
              "content-type": "application/x-www-form-urlencoded",
            },
            body,
          });
          out.push([res.status, (await res.json()).error.code]);
        }
        return out;
      }, csrf);
      deepEqual(statuses, [
        [403, "auth.role_required"],
        [403, "auth.role_required"],
        // Not a member of sales: the workspace is not there for them, as REST answers.
        [404, "workspace.not_found"],
      ]);
      equal(await server.runtime.workspaces.get("mine"), null);
      equal((await server.runtime.workspaces.get("acme"))?.deactivated_at, null);
    }),
);
