/**
 * The users pages' edges in a real browser (issue 23 item 4): a workspace admin gets no Users
 * entry, the 403 page for each users page, and 403 from every partial behind them when called
 * directly; with mail on (a real SMTP server with STARTTLS), creating and resetting say what
 * became of the mail and never show the password, which arrives by mail and signs in.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "../support/access_fixtures.ts";
import {
  accessibleInBothThemes,
  browserTest,
  confirmAct,
  launchBrowser,
  userPage,
  withBrowser,
} from "../support/browser.ts";
import { onFreePort, startTestServer } from "../support/harness.ts";
import { startSmtpServer, testCertificate } from "../support/smtp_server.ts";
import { findUserByEmail } from "../../src/identity/users_repo.ts";
import { verifySecret } from "../../src/lib/argon2.ts";

browserTest(
  "issue 23 item 4: a workspace admin sees no users controls, and the pages and partials answer 403",
  () =>
    withBrowser(
      startTestServer({ env: { SERVICE_AUTH_LOCAL_ENABLED: "true" } }),
      async (server, browser) => {
        const acme = await seedRoles(server.runtime, "acme");
        const target = acme.users.viewer;
        const { page } = await userPage(browser, server.url, acme.users.ws_admin);
        equal(await page.locator(".sidenav a:has-text('Users')").count(), 0);
        equal(await page.locator(".sidenav a:has-text('Audit log')").count(), 1);
        for (const path of ["/admin/users", "/admin/users/new", `/admin/users/${target.id}`]) {
          const res = await page.goto(server.url + path);
          equal(res?.status(), 403, path);
          match(await page.locator("main").innerText(), /403/);
          equal(await page.locator(".user-acts, #create-slot, #user-list").count(), 0, path);
        }
        await accessibleInBothThemes(page, "users page refused");

        // Called directly with the workspace admin's session: the partials' own 403, nothing done.
        const headers = await sessionHeaders(server.runtime, acme.users.ws_admin, "acme");
        const form = { ...headers, "content-type": "application/x-www-form-urlencoded" };
        const calls: [string, string, string?][] = [
          ["POST", "/partials/admin/users", "email=made%40example.com"],
          ...["reset-password", "disable-local", "unlock"].flatMap((v) =>
            ["PATCH", "POST"].map((m) =>
              [m, `/partials/admin/users/${target.id}/${v}`] as [
                string,
                string,
              ]
            )
          ),
          ...["deactivate", "activate", "grant-admin", "revoke-admin"].map((v) =>
            ["POST", `/partials/admin/users/${target.id}/${v}`] as [string, string]
          ),
        ];
        for (const [method, path, body] of calls) {
          const res = await server.fetch(path, { method, headers: form, body, redirect: "manual" });
          equal(res.status, 403, `${method} ${path}`);
          equal((await res.json()).error.code, "auth.role_required", `${method} ${path}`);
        }
        const after = await server.runtime.users.get(target.id);
        deepEqual(
          [after.is_active, after.is_admin, after.password_hash !== null],
          [true, false, true],
        );
        equal(await findUserByEmail(server.runtime.db, "made@example.com"), undefined);
      },
    ),
);

browserTest(
  "issue 23 item 4: with mail on, create and reset show the delivery outcome and never the password",
  async () => {
    const smtp = await startSmtpServer();
    const cert = await testCertificate();
    const server = await onFreePort((port) =>
      startTestServer({
        port,
        env: {
          SERVICE_AUTH_LOCAL_ENABLED: "true",
          SERVICE_AUTH_BASE_URL: `http://127.0.0.1:${port}`,
          SERVICE_MAIL_HOST: "127.0.0.1",
          SERVICE_MAIL_PORT: String(smtp.port),
          SERVICE_MAIL_FROM: "Pipeline Service <noreply@svc.test>",
          SERVICE_MAIL_CA_FILE: cert.certFile,
        },
      })
    );
    const browser = await launchBrowser();
    try {
      const acme = await seedRoles(server.runtime, "acme");
      const { page, problems } = await userPage(browser, server.url, acme.users.super_admin);
      await page.goto(`${server.url}/admin/users/new`);
      match(await page.locator("#create-slot").innerText(), /one-time password by mail/);
      await page.fill("#user-email", "mailed@example.com");
      await page.click("button:has-text('Create user')");
      const outcome = page.locator("#mail-outcome");
      match(await outcome.innerText(), /on its way to mailed@example\.com/);
      equal(await page.locator("#one-time-password").count(), 0);
      await accessibleInBothThemes(page, "new local user, mailed");

      await smtp.until(() => smtp.messages.some((m) => m.to.includes("mailed@example.com")));
      const welcome = smtp.messages.find((m) => m.to.includes("mailed@example.com"))!;
      ok(welcome.secure, "sent inside STARTTLS");
      const password = /One-time password: (\S+)\n/.exec(welcome.body)![1];
      ok(!(await page.content()).includes(password), "the screen never shows it");

      // Reset from the user's page: the mail goes out again, the screen says so and no more.
      const user = (await findUserByEmail(server.runtime.db, "mailed@example.com"))!;
      await page.goto(`${server.url}/admin/users/${user.id}`);
      await page.click(".user-acts a:has-text('Reset password')");
      match(await page.locator("dialog[open]").innerText(), /mailed to mailed@example\.com/);
      await page.locator("dialog[open] button[type=submit]").click();
      match(await outcome.innerText(), /on its way to mailed@example\.com/);
      await smtp.until(() => smtp.messages.some((m) => /Password reset/.test(m.headers.subject)));
      const reset = smtp.messages.find((m) => /Password reset/.test(m.headers.subject))!;
      const second = /One-time password: (\S+)\n/.exec(reset.body)![1];
      ok(!(await page.content()).includes(second));
      ok(await verifySecret(second, (await server.runtime.users.get(user.id)).password_hash!));
      ok(!server.logs.join("\n").includes(second) && !server.logs.join("\n").includes(password));

      // The mailed password signs in to the forced change.
      const fresh = await browser.newPage();
      await fresh.goto(`${server.url}/login`);
      await fresh.fill("input[name=email]", "mailed@example.com");
      await fresh.fill("input[name=password]", second);
      await Promise.all([
        fresh.waitForURL("**/settings/password"),
        fresh.click("button[type=submit]"),
      ]);

      // Unlock needs a lock: the act is not offered for an account that is not locked.
      equal(await page.locator(".user-acts a:has-text('Unlock')").count(), 0);
      await confirmAct(page, ".user-acts a:has-text('Disable local sign-in')");
      await page.locator(".user-outcome:has-text('Local sign-in disabled')").waitFor();
      equal(smtp.messages.length, 2, "disabling local sign-in mails nothing");
      deepEqual(problems, []);
    } finally {
      await browser.close();
      await server.close();
      await smtp.close();
    }
  },
);
