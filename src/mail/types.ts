/** The mail notices (docs/access.md#mail) and what a caller learns about one. */

export const MAIL_KINDS = ["welcome", "password_reset", "new_user"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/**
 * What the caller of a notice learns at once: `queued` (a worker sends it after the caller
 * returns), `sent` / `failed` (the pool was full, so the caller ran it itself), `duplicate` (this
 * (user, kind, act) was claimed before), `skipped` (mail is off, or nobody to send to).
 */
export type MailOutcome = "queued" | "sent" | "failed" | "duplicate" | "skipped";

/** Who caused the notice; its `mail.sent` / `mail.failed` audit rows name this actor. */
export interface MailActor {
  userId: string;
  provider: string;
}

/** `welcome` and `password_reset`: a one-time password for the account's own address. */
export interface PasswordMail {
  /** The account the password belongs to. */
  userId: string;
  /** The act (create or reset) that minted the password; keys the claim. */
  actId: string;
  to: string;
  displayName?: string | null;
  /** Mailed once, never logged or audited. */
  oneTimePassword: string;
  actor: MailActor;
}

/** `new_user`: tells the operators an account exists; never carries a password. */
export interface NewUserMail {
  /** The new account. */
  userId: string;
  /** The creating act (admin create, or the first social login); keys the claim. */
  actId: string;
  email: string;
  displayName?: string | null;
  /** `local`, or the OIDC registration name. */
  provider: string;
  /** The creating admin's email, or a phrase such as `first sign-in`. */
  creator: string;
  /** The workspace the user lands in, if any. */
  workspace?: string | null;
  /** When the account was created (ISO 8601); defaults to now. */
  at?: string;
  actor: MailActor;
}

/** A composed message: plain text, one sender, one or more recipients. */
export interface OutgoingMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}
