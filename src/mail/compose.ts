/**
 * The text of each notice. Plain text only: every mail client renders it, and nothing in it can
 * be mistaken for markup. Links are built from the configured base-url alone, never a request.
 */
import type { NewUserMail, OutgoingMail, PasswordMail } from "./types.ts";

export interface ComposeContext {
  from: string;
  /** `service.auth.base-url`: exact external origin, no trailing slash. */
  baseUrl: string;
}

const FORCED_CHANGE =
  "This password works for one sign-in only: you will be asked to choose a new password " +
  "before you can do anything else.";

function greeting(m: PasswordMail): string {
  const name = m.displayName?.trim();
  return `Hello${name ? ` ${name}` : ""},`;
}

function credentialLines(ctx: ComposeContext, m: PasswordMail): string[] {
  return [
    `Sign in at:        ${ctx.baseUrl}/login`,
    `Email:             ${m.to}`,
    `One-time password: ${m.oneTimePassword}`,
  ];
}

/** To a newly created local user: where and how to sign in the first time. */
export function welcomeMail(ctx: ComposeContext, m: PasswordMail): OutgoingMail {
  return credentialMail(
    ctx,
    m,
    `Your new account: ${m.to}`,
    `An administrator created an account for ${m.to}.`,
  );
}

/** To a local user whose password an administrator reset. */
export function passwordResetMail(ctx: ComposeContext, m: PasswordMail): OutgoingMail {
  return credentialMail(
    ctx,
    m,
    `Password reset for your account: ${m.to}`,
    `An administrator reset the password of ${m.to}. Your previous password no longer works.`,
  );
}

/** A mail carrying a one-time password: the greeting, why it came, the credentials, the change. */
function credentialMail(
  ctx: ComposeContext,
  m: PasswordMail,
  subject: string,
  why: string,
): OutgoingMail {
  return {
    from: ctx.from,
    to: [m.to],
    subject,
    text: [greeting(m), "", why, "", ...credentialLines(ctx, m), "", FORCED_CHANGE, ""].join("\n"),
  };
}

/** To the operators: a new account exists. It never carries a password. */
export function newUserMail(ctx: ComposeContext, m: NewUserMail, to: string[]): OutgoingMail {
  const name = m.displayName?.trim();
  return {
    from: ctx.from,
    to,
    subject: `New user: ${m.email}`,
    text: [
      "A new user account was created.",
      "",
      `Email:             ${m.email}`,
      ...(name ? [`Display name:      ${name}`] : []),
      `Provider:          ${m.provider}`,
      `Created by:        ${m.creator}`,
      `Landing workspace: ${m.workspace ?? "none"}`,
      `Time:              ${m.at ?? new Date().toISOString()}`,
      `Admin screen:      ${ctx.baseUrl}/admin/users/${encodeURIComponent(m.userId)}`,
      "",
    ].join("\n"),
  };
}
