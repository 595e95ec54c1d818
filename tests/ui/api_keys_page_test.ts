/**
 * The API keys page and the account menu in a real browser (issue 23 items 2 and 6): an author
 * opens the page from the menu on their chip, issues a key whose secret is shown once, calls the
 * API with it, and revokes it behind a dialog, after which the key answers 401. A viewer gets no
 * form and the partial refuses them; refused and unknown pages keep a signed-in person's frame.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  userPage,
  withDemoBrowser,
} from "../support/browser.ts";

browserTest(
  "issue 23 item 2: a key made on the page works once copied, is shown once, and revoked answers 401",
  () =>
    withDemoBrowser(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.author, {
        permissions: ["clipboard-read", "clipboard-write"],
      });
      const callWith = (key: string) =>
        fetch(`${server.url}/api/v1/auth/api-keys`, { headers: { "SVC-API-Key": key } })
          .then(async (r) => ({ status: r.status, body: await r.json() }));

      // The user chip opens the account menu, which leads to the page.
      await page.click(".account-menu summary");
      await page.click(".account-menu a:has-text('API keys')");
      await page.waitForURL("**/settings/api-keys");
      match(await page.locator("#key-list").innerText(), /No keys yet/);
      await accessibleInBothThemes(page, "api keys, empty");

      // A refusal lands on the field it concerns, the form keeping what was typed.
      await page.fill("#key-name", "reporting");
      await page.selectOption("#key-expires-in", "custom");
      await page.click("button:has-text('Create key')");
      match(await page.locator("#key-expires-at-error").innerText(), /./);
      equal(await page.inputValue("#key-name"), "reporting");

      await page.selectOption("#key-kind", "user");
      await page.selectOption("#key-scope", "execute");
      await page.selectOption("#key-workspace", "acme");
      await page.selectOption("#key-expires-in", "30d");
      await page.click("button:has-text('Create key')");
      const secret = (await page.locator("#issued-secret").innerText()).trim();
      match(secret, /^svck_[a-z2-7]{12}\.[a-z2-7]{48}$/);
      match(await page.locator(".issued").innerText(), /shown only this once/);
      match(await page.locator("#key-list").innerText(), /reporting[\s\S]*active/);
      await accessibleInBothThemes(page, "api keys, secret shown");
      await page.click("button[data-copy=issued-secret]");
      equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

      const listed = await callWith(secret);
      equal(listed.status, 200, JSON.stringify(listed.body));
      const mine = listed.body.data.items.find((k: { name: string }) => k.name === "reporting");
      deepEqual([mine.kind, mine.scopes, mine.workspace], ["user", ["execute"], "acme"]);

      // A reload shows the list, never the secret again.
      await page.reload();
      ok(!(await page.content()).includes(secret.split(".")[1]), "the secret after a reload");
      const row = page.locator("#key-list tbody tr", { hasText: "reporting" });
      match(await row.innerText(), /user[\s\S]*execute[\s\S]*acme[\s\S]*active/);

      // Revoke asks first and says what stops working; Cancel changes nothing.
      await row.locator("a:has-text('Revoke')").click();
      const dialog = page.locator("dialog[open]");
      await dialog.waitFor();
      match(await dialog.innerText(), /Revoke reporting\?[\s\S]*refused with 401/);
      await accessibleInBothThemes(page, "api keys, revoke dialog");
      await dialog.locator("a:has-text('Cancel')").click();
      await dialog.waitFor({ state: "hidden" });
      equal((await callWith(secret)).status, 200);

      await row.locator("a:has-text('Revoke')").click();
      await Promise.all([
        page.waitForURL(/revoked=/),
        page.locator("dialog[open] button:has-text('Revoke key')").click(),
      ]);
      match(await page.locator("[role=status]").innerText(), /was revoked/);
      match(await row.innerText(), /revoked/);
      equal(await row.locator("a:has-text('Revoke')").count(), 0);
      equal((await callWith(secret)).status, 401);
      // Only the refusal above, answered 400 as its REST twin answers it.
      deepEqual(problems.filter((p) => !/\b400\b/.test(p)), []);
    }),
);

browserTest(
  "issue 23 items 2 and 6: a viewer mints no key, an endpoint key takes its bindings; 403 and 404 keep the frame",
  () =>
    withDemoBrowser(async (server, browser) => {
      const acme = await seedRoles(server.runtime, "acme");
      const viewer = acme.users.viewer;
      const { page, problems } = await userPage(browser, server.url, viewer);
      await page.goto(`${server.url}/settings/api-keys`);
      equal(await page.locator("form.key-create").count(), 0);
      match(await page.locator("#key-create-slot").innerText(), /issued by authors/);
      await accessibleInBothThemes(page, "api keys, viewer");

      // The partial refuses a viewer like spec 1 §5.10 says, whatever kind is asked for.
      const headers = await sessionHeaders(server.runtime, viewer);
      for (const kind of ["user", "endpoint"]) {
        const res = await server.fetch("/partials/account/api-keys", {
          method: "POST",
          headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ name: "x", kind, workspace: "acme", expires_in: "never" }),
        });
        equal(res.status, 403, kind);
        match(await res.text(), /auth\.role_required/);
      }

      // An author's endpoint key takes its bindings from the form, one path a line, and no scopes;
      // a binding outside the path grammar is refused on its field.
      const author = await sessionHeaders(server.runtime, acme.users.author);
      const issue = (fields: Record<string, string>) =>
        server.fetch("/partials/account/api-keys", {
          method: "POST",
          headers: { ...author, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ workspace: "acme", expires_in: "never", ...fields }),
        }).then(async (r) => ({ status: r.status, html: await r.text() }));
      const bad = await issue({
        name: "app",
        kind: "endpoint",
        bindings: "/shop/{country}\n/Bad Path",
      });
      equal(bad.status, 400);
      match(bad.html, /id="key-bindings-error"/);
      const made = await issue({
        name: "app",
        kind: "endpoint",
        scope: "author",
        bindings: "/shop/{country}\r\n\n/sales",
      });
      equal(made.status, 201);
      match(made.html, /id="issued-secret"[^>]*>svck_/);
      const keys = await server.fetch("/api/v1/auth/api-keys", { headers: author }).then((r) =>
        r.json()
      );
      const app = keys.data.items.find((k: { name: string }) => k.name === "app");
      deepEqual([app.kind, app.scopes, app.bindings], ["endpoint", [], [
        { path: "/shop/{country}" },
        { path: "/sales" },
      ]]);

      // Without the script, Revoke is a link to the page with that key's dialog drawn open.
      const confirm = await server.fetch(`/settings/api-keys?revoke=${app.id}`, {
        headers: { ...author, accept: "text/html" },
      }).then((r) => r.text());
      match(confirm, new RegExp(`<dialog id="revoke-${app.id}"[^>]* open`));
      match(confirm, /calls to the published endpoints under \/shop\/\{country\}, \/sales/);

      // Refused and unknown pages: the shell, the account menu, no "Sign in".
      for (const [path, status] of [["/endpoints", 403], ["/no/such/page", 404]] as const) {
        const res = await page.goto(`${server.url}${path}`);
        equal(res?.status(), status, path);
        equal(await page.locator("nav.sidenav").count(), 1, path);
        equal(await page.locator(".account-menu summary").count(), 1, path);
        equal(await page.locator("a:has-text('Sign in')").count(), 0, path);
        await accessibleInBothThemes(page, path);
      }
      // Signed out, no frame of anyone's.
      const anonymous = await browser.newPage();
      await anonymous.goto(`${server.url}/no/such/page`);
      equal(await anonymous.locator(".account-menu").count(), 0);
      // Only the two pages' own statuses, nothing else.
      deepEqual(problems.filter((p) => !/\b(403|404)\b/.test(p)), []);
    }),
);
