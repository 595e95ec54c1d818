/**
 * Mail through the local-user admin partials, end to end: the real app, a real SMTP server with
 * STARTTLS, what it received, the audit rows and the screens. With mail on a screen never shows
 * the one-time password; with mail off it shows it once and each notice is a `mail.skipped` line.
 */
import { equal, match, ok } from "node:assert/strict";
import { queryAudit } from "../src/audit/mod.ts";
import { verifySecret } from "../src/lib/argon2.ts";
import { findUserByEmail } from "../src/identity/users_repo.ts";
import {
  type AccessFixture,
  seedRoles,
  sessionHeaders,
  userKey,
} from "./support/access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import {
  closedPort,
  type SmtpServerOptions,
  startSmtpServer,
  testCertificate,
  type TestSmtpServer,
} from "./support/smtp_server.ts";
import { STORE_KINDS, type StoreKind } from "./support/stores.ts";
import { audits } from "./support/refusals.ts";

const BASE = "http://svc.test";

async function mailEnv(port: number): Promise<Record<string, string>> {
  return {
    SERVICE_AUTH_LOCAL_ENABLED: "true",
    SERVICE_AUTH_BASE_URL: BASE,
    SERVICE_MAIL_HOST: "127.0.0.1",
    SERVICE_MAIL_PORT: String(port),
    SERVICE_MAIL_FROM: "Pipeline Service <noreply@svc.test>",
    SERVICE_MAIL_OPS_RECIPIENTS: "ops@svc.test",
    SERVICE_MAIL_CA_FILE: (await testCertificate()).certFile,
  };
}

interface World {
  s: TestServer;
  f: AccessFixture;
  smtp?: TestSmtpServer;
  admin: Record<string, string>;
}

async function withWorld(
  options: { store?: StoreKind; smtp?: SmtpServerOptions | false; port?: number },
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const smtp = options.smtp === false ? undefined : await startSmtpServer(options.smtp ?? {});
  const port = options.port ?? smtp?.port;
  const env = port === undefined ? { SERVICE_AUTH_LOCAL_ENABLED: "true" } : await mailEnv(port);
  const s = await startTestServer({ store: options.store, env });
  try {
    const f = await seedRoles(s.runtime);
    const admin = await sessionHeaders(s.runtime, f.users.super_admin);
    await fn({ s, f, smtp, admin });
  } finally {
    await s.close();
    await smtp?.close();
  }
}

function passwordIn(body: string): string {
  const m = /One-time password: (\S+)\n/.exec(body);
  ok(m, "the mail carries a one-time password");
  return m[1];
}

for (const store of STORE_KINDS) {
  Deno.test({
    name:
      `[${store}] create with mail on: welcome and new_user are mailed, the screen shows no password`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      await withWorld({ store }, async ({ s, f, smtp, admin }) => {
        const res = await call(s, "POST", "/partials/admin/users", admin, {
          email: "New.Person@Example.com",
          display_name: "New Person",
          workspace: "acme",
          author: true,
        });
        equal(res.status, 201);
        equal(res.body.data.mail, "queued");
        equal(res.body.data.one_time_password, undefined);
        equal(res.body.data.joined.join(","), "acme");
        await s.runtime.mail.idle();
        equal(smtp!.messages.length, 2);
        const welcome = smtp!.messages.find((m) => m.to.includes("new.person@example.com"))!;
        const notice = smtp!.messages.find((m) => m.to.includes("ops@svc.test"))!;
        equal(welcome.secure, true);
        equal(welcome.headers.subject, "Your new account: new.person@example.com");
        match(welcome.body, /Sign in at: +http:\/\/svc\.test\/login\n/);
        const password = passwordIn(welcome.body);
        const user = (await findUserByEmail(s.runtime.db, "new.person@example.com"))!;
        ok(await verifySecret(password, user.password_hash!), "the mailed password signs in");
        ok(!JSON.stringify(res.body).includes(password), "the screen never shows it");

        equal(notice.headers.subject, "New user: new.person@example.com");
        for (
          const line of [
            "Display name:      New Person",
            "Provider:          local",
            `Created by:        ${f.users.super_admin.email}`,
            "Landing workspace: acme",
            `Admin screen:      ${BASE}/admin/users/${user.id}`,
          ]
        ) ok(notice.body.includes(line + "\n"), line);
        ok(!notice.body.includes(password));

        const [created] = await audits(s.runtime.db, "auth.user.created");
        const sent = await audits(s.runtime.db, "mail.sent");
        equal(sent.length, 2);
        ok(sent.every((r) => r.details.act_id === created.details.act_id));
        ok(sent.every((r) => r.user_id === f.users.super_admin.id));
        const all = JSON.stringify(await queryAudit(s.runtime.db, { offset: 0, limit: 200 }));
        ok(!all.includes(password) && !s.logs.join("\n").includes(password));
      });
    },
  });

  Deno.test({
    name: `[${store}] reset with mail on: password_reset is mailed once, the screen says where`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      await withWorld({ store }, async ({ s, f, smtp, admin }) => {
        const target = f.users.viewer;
        const res = await s.fetch(`/partials/admin/users/${target.id}/reset-password`, {
          method: "PATCH",
          headers: { ...admin, accept: "text/html" },
        });
        equal(res.status, 200);
        const html = await res.text();
        match(html, /A mail with the one-time password is on its way to viewer@acme\.example/);
        await s.runtime.mail.idle();
        equal(smtp!.messages.length, 1);
        const [got] = smtp!.messages;
        equal(got.headers.subject, "Password reset for your account: viewer@acme.example");
        const password = passwordIn(got.body);
        ok(!html.includes(password));
        const row = await findUserByEmail(s.runtime.db, target.email);
        ok(await verifySecret(password, row!.password_hash!));
        const [reset] = await audits(s.runtime.db, "auth.password.reset");
        const [sent] = await audits(s.runtime.db, "mail.sent");
        equal(sent.details.kind, "password_reset");
        equal(sent.details.act_id, reset.details.act_id);
        equal(sent.details.message_id, got.headers["message-id"]);
      });
    },
  });
}

Deno.test("a failed send never fails the request: no STARTTLS, then a dead server", async () => {
  await withWorld({ smtp: { starttls: false } }, async ({ s, smtp, admin }) => {
    const res = await call(s, "POST", "/partials/admin/users", admin, { email: "a@example.com" });
    equal(res.status, 201);
    await s.runtime.mail.idle();
    equal(smtp!.envelopes, 0, "nothing went out in the clear");
    const failed = await audits(s.runtime.db, "mail.failed");
    equal(failed.length, 2);
    ok(failed.every((r) => /STARTTLS/.test(String(r.details.error))));
    ok(await findUserByEmail(s.runtime.db, "a@example.com"));
  });
  await withWorld({ smtp: false, port: closedPort() }, async ({ s, f, admin }) => {
    const res = await call(
      s,
      "PATCH",
      `/partials/admin/users/${f.users.author.id}/reset-password`,
      admin,
    );
    equal(res.status, 200);
    equal(res.body.data.one_time_password, undefined);
    await s.runtime.mail.idle();
    const [failed] = await audits(s.runtime.db, "mail.failed");
    equal(failed.details.attempts, 3);
    equal(failed.details.stage, "connect");
    equal(s.logs.filter((l) => l.includes('"message":"mail.connect_retry"')).length, 2);
  });
});

Deno.test("mail off: the screens show the one-time password once; each notice logs mail.skipped", async () => {
  await withWorld({ smtp: false }, async ({ s, f, admin }) => {
    equal(s.runtime.mail.enabled, false);
    const res = await call(s, "POST", "/partials/admin/users", admin, { email: "off@example.com" });
    equal(res.status, 201);
    equal(res.body.data.mail, "off");
    const password = String(res.body.data.one_time_password);
    const user = (await findUserByEmail(s.runtime.db, "off@example.com"))!;
    ok(await verifySecret(password, user.password_hash!));

    const page = await s.fetch(`/partials/admin/users/${f.users.viewer.id}/reset-password`, {
      method: "PATCH",
      headers: { ...admin, accept: "text/html" },
    });
    const html = await page.text();
    const shown = /id="one-time-password"[^>]*>([^<]+)</.exec(html)?.[1];
    ok(shown);
    ok(
      await verifySecret(
        shown,
        (await findUserByEmail(s.runtime.db, f.users.viewer.email))!
          .password_hash!,
      ),
    );

    const skipped = s.logs.map((l) => JSON.parse(l)).filter((l) => l.message === "mail.skipped");
    equal(skipped.length, 3);
    ok(skipped.every((l) => l.level === "info"));
    equal(skipped.map((l) => l.kind).sort().join(","), "new_user,password_reset,welcome");
    ok(!s.logs.join("\n").includes(password) && !s.logs.join("\n").includes(shown));
    equal(
      (await audits(s.runtime.db, "mail.sent")).length +
        (await audits(s.runtime.db, "mail.failed")).length,
      0,
    );
    const claims = await s.runtime.db.query("SELECT user_id FROM mail_claims");
    equal(claims.length, 0);
  });
});

Deno.test("an API key cannot create or reset, whatever its scope", async () => {
  await withWorld({}, async ({ s, f, smtp }) => {
    const key = await userKey(s.runtime, f.users.super_admin, f.workspace.id, ["author"]);
    const res = await call(s, "POST", "/partials/admin/users", { "SVC-API-Key": key }, {
      email: "k@example.com",
    });
    equal(res.body.error?.code, "auth.session.required");
    await s.runtime.mail.idle();
    equal(smtp!.connections, 0);
  });
});

Deno.test("shutdown drains the mail pool before the stores close", async () => {
  const smtp = await startSmtpServer();
  const s = await startTestServer({ env: await mailEnv(smtp.port) });
  let closed = false;
  try {
    const f = await seedRoles(s.runtime);
    const admin = await sessionHeaders(s.runtime, f.users.super_admin);
    const res = await call(s, "POST", "/partials/admin/users", admin, { email: "z@example.com" });
    equal(res.body.data.mail, "queued");
    await s.close();
    closed = true;
    // Recorded before the store closed: the sends finished inside close().
    const lines = s.logs.map((l) => JSON.parse(l));
    equal(lines.filter((l) => l.message === "mail.sent").length, 2);
    equal(lines.filter((l) => /^mail\.(record|claim)_failed$/.test(l.message)).length, 0);
    equal(smtp.messages.length, 2);
  } finally {
    if (!closed) await s.close();
    await smtp.close();
  }
});

Deno.test("creating a user reads a form or a JSON object; any other body brings no fields", async () => {
  await withWorld({ smtp: false }, async ({ s, admin }) => {
    const post = (type: string, body: string) =>
      s.fetch("/partials/admin/users", {
        method: "POST",
        headers: { ...admin, "content-type": type, accept: "application/json" },
        body,
      });
    const form = await post("application/x-www-form-urlencoded", "email=form%40example.com");
    equal(form.status, 201, await form.clone().text());
    ok(await findUserByEmail(s.runtime.db, "form@example.com"));
    for (
      const [type, body] of [
        ["text/plain", "email=plain@example.com"],
        ["application/json", '["email", "array@example.com"]'],
      ]
    ) {
      const res = await post(type, body);
      const { error } = await res.json();
      equal(res.status, 400, type);
      equal(error.code, "pipeline.execution.invalid_parameter_type", type);
      equal(error.details.field, "email", type);
    }
  });
});
