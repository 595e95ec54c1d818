import { deepEqual, equal, match, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { closing } from "../../tests/support/closing.ts";
import {
  closedPort,
  startSmtpServer,
  testCertificate,
  type TestSmtpServer,
} from "../../tests/support/smtp_server.ts";
import { queryAudit } from "../audit/mod.ts";
import { newId } from "../lib/ids.ts";
import { createLogger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { claimsFor } from "./repo.ts";
import { MailService, type MailServiceOptions, type MailSettings } from "./service.ts";
import type { PasswordMail } from "./types.ts";
import { audits } from "../../tests/support/refusals.ts";
import { insertUser } from "../store/row_fixtures.ts";

const BASE = "https://svc.example";
const admin = { userId: newId(), provider: "local" };

interface Fixture {
  mail: MailService;
  logs: string[];
}

async function service(
  db: Db,
  smtp: { port: number } | undefined,
  extra: Omit<Partial<MailServiceOptions>, "settings"> & { settings?: Partial<MailSettings> } = {},
): Promise<Fixture> {
  const logs: string[] = [];
  const { cert } = await testCertificate();
  const mail = new MailService({
    db,
    logger: createLogger("debug", (line) => logs.push(line)),
    ...extra,
    settings: {
      ...(smtp ? { host: "127.0.0.1", from: "Service <noreply@svc.example>" } : {}),
      port: smtp?.port ?? 587,
      opsRecipients: ["ops@svc.example", "oncall@svc.example"],
      baseUrl: BASE,
      ca: cert,
      ...extra.settings,
    },
  });
  return { mail, logs };
}

function passwordMail(userId: string, to: string, actId = newId()): PasswordMail {
  return {
    userId,
    actId,
    to,
    displayName: "Ada Lovelace",
    oneTimePassword: `otp-${crypto.randomUUID()}`,
    actor: admin,
  };
}

function withServer(
  options: Parameters<typeof startSmtpServer>[0],
  fn: (s: TestSmtpServer) => Promise<void>,
): Promise<void> {
  return closing(startSmtpServer(options), fn);
}

forEachStore(
  "welcome: sent inside STARTTLS with login URL, email, password, forced change",
  async (db) => {
    await withServer({}, async (smtp) => {
      const { mail, logs } = await service(db, smtp);
      const userId = await insertUser(db, "ada@example.com");
      const m = passwordMail(userId, "ada@example.com");
      equal(await mail.welcome(m), "queued");
      await mail.idle();
      equal(smtp.messages.length, 1);
      const [got] = smtp.messages;
      equal(got.secure, true);
      deepEqual(got.to, ["ada@example.com"]);
      equal(got.from, "noreply@svc.example");
      equal(got.headers.subject, "Your new account: ada@example.com");
      match(got.body, /^Hello Ada Lovelace,/);
      match(got.body, /Sign in at: +https:\/\/svc\.example\/login\n/);
      match(got.body, /Email: +ada@example\.com\n/);
      ok(got.body.includes(`One-time password: ${m.oneTimePassword}\n`));
      match(got.body, /you will be asked to choose a new password/);

      const [row] = await audits(db, "mail.sent");
      equal(row.user_id, admin.userId);
      deepEqual(row.details, {
        kind: "welcome",
        recipient: "ada@example.com",
        act_id: m.actId,
        target_user_id: userId,
        attempts: 1,
        message_id: got.headers["message-id"],
      });
      const [claim] = await claimsFor(db, userId);
      deepEqual([claim.kind, claim.status, claim.message_id], [
        "welcome",
        "sent",
        got.headers["message-id"],
      ]);
      const everything = JSON.stringify(await queryAudit(db, { offset: 0, limit: 50 })) +
        logs.join("\n");
      ok(!everything.includes(m.oneTimePassword), "the password is never audited or logged");
      ok(!everything.includes("Sign in at"), "the body is never audited or logged");
    });
  },
);

forEachStore("password_reset: same family, its own subject and claim", async (db) => {
  await withServer({}, async (smtp) => {
    const { mail } = await service(db, smtp);
    const userId = await insertUser(db, "bob@example.com");
    const m = { ...passwordMail(userId, "bob@example.com"), displayName: null };
    await mail.passwordReset(m);
    await mail.idle();
    const [got] = smtp.messages;
    equal(got.headers.subject, "Password reset for your account: bob@example.com");
    match(got.body, /^Hello,\n/);
    match(got.body, /reset the password of bob@example\.com/);
    ok(got.body.includes(`One-time password: ${m.oneTimePassword}\n`));
    match(got.body, /Sign in at: +https:\/\/svc\.example\/login\n/);
    match(got.body, /choose a new password/);
    equal((await audits(db, "mail.sent"))[0].details.kind, "password_reset");
  });
});

forEachStore(
  "new_user: one mail to every ops recipient with the facts, never a password",
  async (db) => {
    await withServer({}, async (smtp) => {
      const { mail } = await service(db, smtp);
      const userId = await insertUser(db, "cy@example.com");
      const at = "2026-11-22T10:00:00.000Z";
      const base = {
        userId,
        email: "cy@example.com",
        provider: "corp-sso",
        creator: "first sign-in",
        at,
        actor: { userId, provider: "corp-sso" },
      };
      await mail.newUser({ ...base, actId: newId(), displayName: "Cy D", workspace: "acme" });
      await mail.newUser({ ...base, actId: newId(), displayName: null, workspace: null });
      await mail.idle();
      equal(smtp.messages.length, 2);
      const [first, second] = smtp.messages;
      deepEqual(first.to, ["ops@svc.example", "oncall@svc.example"]);
      equal(first.headers.subject, "New user: cy@example.com");
      for (
        const line of [
          "Email:             cy@example.com",
          "Display name:      Cy D",
          "Provider:          corp-sso",
          "Created by:        first sign-in",
          "Landing workspace: acme",
          `Time:              ${at}`,
          `Admin screen:      ${BASE}/admin/users/${userId}`,
        ]
      ) ok(first.body.includes(line + "\n"), line);
      ok(!/password/i.test(first.body));
      ok(!second.body.includes("Display name:"));
      ok(second.body.includes("Landing workspace: none\n"));
      equal(
        (await audits(db, "mail.sent"))[0].details.recipient,
        "ops@svc.example, oncall@svc.example",
      );
    });
  },
);

forEachStore("the claim table sends each (user, kind, act) once", async (db) => {
  await withServer({}, async (smtp) => {
    const { mail, logs } = await service(db, smtp);
    const userId = await insertUser(db, "dup@example.com");
    const m = passwordMail(userId, "dup@example.com");
    await mail.welcome(m);
    await mail.idle();
    await mail.welcome(m);
    await mail.idle();
    equal(smtp.messages.length, 1);
    ok(logs.some((l) => l.includes('"message":"mail.duplicate"')));
    // Another kind or another act is another message.
    await mail.passwordReset({ ...m });
    await mail.welcome({ ...m, actId: newId() });
    await mail.idle();
    equal(smtp.messages.length, 3);
    deepEqual((await claimsFor(db, userId)).map((c) => c.status), ["sent", "sent", "sent"]);
    equal((await audits(db, "mail.sent")).length, 3);
  });
});

forEachStore(
  "a server without STARTTLS is refused before any envelope: mail.failed",
  async (db) => {
    await withServer({ starttls: false }, async (smtp) => {
      const { mail } = await service(db, smtp);
      const userId = await insertUser(db, "plain@example.com");
      await mail.welcome(passwordMail(userId, "plain@example.com"));
      await mail.idle();
      equal(smtp.connections, 1, "no retry once connected");
      equal(smtp.envelopes, 0, "nothing was sent in the clear");
      const [row] = await audits(db, "mail.failed");
      equal(row.details.kind, "welcome");
      equal(row.details.attempts, 1);
      equal(row.details.stage, "session");
      match(String(row.details.error), /STARTTLS/);
      equal((await claimsFor(db, userId))[0].status, "failed");
    });
  },
);

forEachStore("a certificate that does not chain to the configured CA is refused", async (db) => {
  await withServer({}, async (smtp) => {
    const { mail } = await service(db, smtp, { settings: { ca: undefined } });
    const userId = await insertUser(db, "tls@example.com");
    await mail.welcome(passwordMail(userId, "tls@example.com"));
    await mail.idle();
    equal(smtp.envelopes, 0);
    const [row] = await audits(db, "mail.failed");
    match(String(row.details.error), /certificate/i);
  });
});

forEachStore(
  "a connect failure is retried 3 times with 250 ms then 1 s, then fails",
  async (db) => {
    const delays: number[] = [];
    const { mail, logs } = await service(db, { port: closedPort() }, {
      sleep: (ms) => {
        delays.push(ms);
        return Promise.resolve();
      },
    });
    const userId = await insertUser(db, "down@example.com");
    equal(await mail.welcome(passwordMail(userId, "down@example.com")), "queued");
    await mail.idle();
    deepEqual(delays, [250, 1000]);
    const [row] = await audits(db, "mail.failed");
    equal(row.details.attempts, 3);
    equal(row.details.stage, "connect");
    match(String(row.details.error), /ECONNREFUSED/);
    equal(logs.filter((l) => l.includes('"message":"mail.connect_retry"')).length, 2);
  },
);

forEachStore("a connect failure followed by a reachable server delivers once", async (db) => {
  const port = closedPort();
  let server: TestSmtpServer | undefined;
  const { mail } = await service(db, { port }, {
    // The server comes up during the first back-off, so the second attempt reaches it.
    sleep: async () => {
      server ??= await startSmtpServer({ port });
    },
  });
  try {
    const userId = await insertUser(db, "later@example.com");
    await mail.welcome(passwordMail(userId, "later@example.com"));
    await mail.idle();
    equal(server?.messages.length, 1);
    equal((await audits(db, "mail.sent"))[0].details.attempts, 2);
  } finally {
    await server?.close();
  }
});

forEachStore("a failure after connecting is terminal: no second password mail", async (db) => {
  await withServer({ rejectData: { code: 451, message: "try again later" } }, async (smtp) => {
    const { mail, logs } = await service(db, smtp);
    const userId = await insertUser(db, "once@example.com");
    const m = passwordMail(userId, "once@example.com");
    await mail.passwordReset(m);
    await mail.idle();
    // Raising the same notice again must not send a second copy either.
    await mail.passwordReset(m);
    await mail.idle();
    equal(smtp.connections, 1);
    equal(smtp.dataCount, 1);
    const failed = await audits(db, "mail.failed");
    equal(failed.length, 1);
    equal(failed[0].details.attempts, 1);
    match(String(failed[0].details.error), /451/);
    ok(!logs.some((l) => l.includes("mail.connect_retry")));
    ok(!JSON.stringify(failed).includes(m.oneTimePassword));
  });
});

forEachStore("SMTP login over TLS; the SMTP password is never logged or audited", async (db) => {
  const secret = `smtp-${crypto.randomUUID()}`;
  await withServer({ auth: { user: "svc", pass: secret } }, async (smtp) => {
    const good = await service(db, smtp, { settings: { username: "svc", password: secret } });
    const bad = await service(db, smtp, { settings: { username: "svc", password: `${secret}x` } });
    const userId = await insertUser(db, "auth@example.com");
    await good.mail.welcome(passwordMail(userId, "auth@example.com"));
    await bad.mail.welcome(passwordMail(userId, "auth@example.com"));
    await Promise.all([good.mail.idle(), bad.mail.idle()]);
    equal(smtp.messages.length, 1);
    const [failed] = await audits(db, "mail.failed");
    match(String(failed.details.error), /EAUTH/);
    const everything = JSON.stringify(await queryAudit(db, { offset: 0, limit: 50 })) +
      good.logs.join("\n") + bad.logs.join("\n");
    ok(!everything.includes(secret));
  });
});

forEachStore("mail off: each notice is one mail.skipped INFO line, nothing claimed", async (db) => {
  const { mail, logs } = await service(db, undefined);
  equal(mail.enabled, false);
  const userId = await insertUser(db, "off@example.com");
  const m = passwordMail(userId, "off@example.com");
  equal(await mail.welcome(m), "skipped");
  equal(await mail.passwordReset(m), "skipped");
  equal(
    await mail.newUser({
      userId,
      actId: m.actId,
      email: "off@example.com",
      provider: "local",
      creator: "root@example.com",
      actor: admin,
    }),
    "skipped",
  );
  const skipped = logs.map((l) => JSON.parse(l)).filter((l) => l.message === "mail.skipped");
  deepEqual(skipped.map((l) => [l.level, l.kind]), [
    ["info", "welcome"],
    ["info", "password_reset"],
    ["info", "new_user"],
  ]);
  ok(!logs.join("\n").includes(m.oneTimePassword));
  equal((await claimsFor(db, userId)).length, 0);
});

forEachStore("a full pool makes the caller send the notice itself", async (db) => {
  await withServer({}, async (smtp) => {
    const { mail } = await service(db, smtp, { workers: 1, queueCapacity: 0 });
    const userId = await insertUser(db, "busy@example.com");
    const first = mail.welcome(passwordMail(userId, "busy@example.com"));
    const second = mail.welcome(passwordMail(userId, "busy@example.com"));
    deepEqual(await Promise.all([first, second]), ["queued", "sent"]);
    await mail.idle();
    equal(smtp.messages.length, 2);
  });
});
