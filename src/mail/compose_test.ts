import { equal, ok } from "node:assert/strict";
import { newUserMail, passwordResetMail, welcomeMail } from "./compose.ts";

const ctx = { from: "noreply@svc.example", baseUrl: "https://svc.example" };
const actor = { userId: "u", provider: "local" };
const pw = { userId: "u1", actId: "a1", to: "x@example.com", oneTimePassword: "otp", actor };

Deno.test("welcome and password_reset name the account in the subject and carry the login URL", () => {
  for (const m of [welcomeMail(ctx, pw), passwordResetMail(ctx, pw)]) {
    ok(m.subject.endsWith("x@example.com"));
    ok(m.text.includes("https://svc.example/login"));
    ok(m.text.includes("One-time password: otp"));
    ok(m.text.startsWith("Hello,"));
  }
  ok(welcomeMail(ctx, { ...pw, displayName: "X Y" }).text.startsWith("Hello X Y,"));
});

Deno.test("new_user omits an absent display name and never mentions a password", () => {
  const m = newUserMail(ctx, {
    userId: "id/1",
    actId: "a",
    email: "n@example.com",
    provider: "corp",
    creator: "first sign-in",
    actor,
  }, ["ops@example.com"]);
  ok(!m.text.includes("Display name"));
  ok(!/password/i.test(m.text));
  ok(m.text.includes("Admin screen:      https://svc.example/admin/users/id%2F1\n"));
  equal(m.to.join(), "ops@example.com");
});
