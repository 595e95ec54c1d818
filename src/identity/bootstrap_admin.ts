/**
 * The bootstrap admin (docs/access.md#bootstrap-admin). The grant fires only when a user row is
 * created for the configured email (case-insensitive), with one `auth.user.admin_granted` audit
 * row, actor `bootstrap`. Login and the startup placeholder both create rows through
 * `insertUserRow`, whose insert yields to an existing row, so whichever comes first grants and the
 * other grants nothing; a revoke is never undone because nothing grants an existing row.
 */
import { recordAudit } from "../audit/mod.ts";
import { newId } from "../lib/ids.ts";
import type { Db, Queryable } from "../store/mod.ts";

export const BOOTSTRAP_PROVIDER = "bootstrap";

export interface NewUserRow {
  email: string;
  displayName: string;
  provider: string;
  providerSubject: string;
  profilePictureUrl?: string | null;
  lastLoginAt?: string | null;
}

/**
 * Inserts a user row unless one holds the email; grants admin at creation when the email is the
 * bootstrap email. Returns the new id, or undefined when a row already held the email.
 */
export async function insertUserRow(
  tx: Queryable,
  row: NewUserRow,
  bootstrapAdminEmail: string | undefined,
): Promise<string | undefined> {
  const id = newId();
  const now = new Date().toISOString();
  const email = row.email.toLowerCase();
  const admin = isBootstrapEmail(email, bootstrapAdminEmail);
  const inserted = await tx.execute(
    `INSERT INTO users (id, email, display_name, profile_picture_url, provider, provider_subject,
       is_active, is_admin, password_hash, must_change_password, created_at, updated_at, last_login_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, $10, $10, $11)
     ON CONFLICT (email) DO NOTHING`,
    [
      id,
      email,
      row.displayName,
      row.profilePictureUrl ?? null,
      row.provider,
      row.providerSubject,
      true,
      admin,
      false,
      now,
      row.lastLoginAt ?? null,
    ],
  );
  if (inserted === 0) return undefined;
  if (admin) await auditBootstrapGrant(tx, id, email);
  return id;
}

/** True when a row created for `email` gets the bootstrap grant. */
export function isBootstrapEmail(email: string, bootstrapAdminEmail: string | undefined): boolean {
  return bootstrapAdminEmail !== undefined &&
    bootstrapAdminEmail.toLowerCase() === email.toLowerCase();
}

/** The one audit row of the bootstrap grant, in the creating transaction. */
export async function auditBootstrapGrant(tx: Queryable, userId: string, email: string) {
  await recordAudit(tx, {
    event: "auth.user.admin_granted",
    provider: BOOTSTRAP_PROVIDER,
    details: { target_user_id: userId, actor: BOOTSTRAP_PROVIDER, email },
  });
}

/**
 * Startup with a bootstrap datasource file: pre-creates the admin's row (provider `bootstrap`,
 * subject the email, display name the email's local part). A restart, or a row made by an earlier
 * login, is left untouched. True when this call created the row.
 */
export async function ensureBootstrapPlaceholder(db: Db, email: string): Promise<boolean> {
  const lower = email.toLowerCase();
  return await db.transaction(async (tx) =>
    await insertUserRow(tx, {
      email: lower,
      displayName: lower.split("@")[0],
      provider: BOOTSTRAP_PROVIDER,
      providerSubject: lower,
    }, lower) !== undefined
  );
}
