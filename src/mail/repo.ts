/** The mail claim table: one row per (user, kind, act), claimed before the message is sent. */
import type { Queryable } from "../store/mod.ts";
import type { MailKind } from "./types.ts";

export interface ClaimKey {
  userId: string;
  kind: MailKind;
  actId: string;
}

/** Claims a message; false when that (user, kind, act) was claimed before. */
export async function claimMail(
  db: Queryable,
  key: ClaimKey,
  recipient: string,
): Promise<boolean> {
  const n = await db.execute(
    `INSERT INTO mail_claims (user_id, kind, act_id, recipient, status, claimed_at)
     VALUES ($1, $2, $3, $4, 'claimed', $5)
     ON CONFLICT (user_id, kind, act_id) DO NOTHING`,
    [key.userId, key.kind, key.actId, recipient, new Date().toISOString()],
  );
  return n === 1;
}

/** Records how a claimed message ended. */
export async function finishMail(
  db: Queryable,
  key: ClaimKey,
  outcome: { status: "sent"; messageId: string } | { status: "failed"; error: string },
): Promise<void> {
  await db.execute(
    `UPDATE mail_claims SET status = $4, message_id = $5, error = $6, finished_at = $7
     WHERE user_id = $1 AND kind = $2 AND act_id = $3`,
    [
      key.userId,
      key.kind,
      key.actId,
      outcome.status,
      outcome.status === "sent" ? outcome.messageId : null,
      outcome.status === "failed" ? outcome.error : null,
      new Date().toISOString(),
    ],
  );
}

export interface ClaimRow {
  user_id: string;
  kind: MailKind;
  act_id: string;
  recipient: string;
  status: "claimed" | "sent" | "failed";
  message_id: string | null;
  error: string | null;
}

/** Every claim for a user, oldest first. */
export async function claimsFor(db: Queryable, userId: string): Promise<ClaimRow[]> {
  const rows = await db.query<ClaimRow>(
    `SELECT user_id, kind, act_id, recipient, status, message_id, error FROM mail_claims
     WHERE user_id = $1 ORDER BY claimed_at, kind`,
    [userId],
  );
  return rows.map((r) => ({ ...r, user_id: String(r.user_id) }));
}
