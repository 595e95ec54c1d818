/**
 * User administration (docs/access.md#local-user-administration): list, read, activate, deactivate,
 * grant and revoke the super admin flag. Each mutation is audited in its transaction and drops the
 * user from the local liveness cache at once.
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { likeLiteral } from "../lib/folder_path.ts";
import { isUuid } from "../lib/ids.ts";
import { countOf, type Db, readPage } from "../store/mod.ts";
import type { Principal } from "./types.ts";
import { findUserById, toUserRow, type UserRow, type UserView, userView } from "./users_repo.ts";
import type { Counted } from "../lib/paged_view.ts";

/** The audit event of each flag a super admin flips, turned on and off. */
const FLIPPED = {
  is_active: { on: "auth.user.activated", off: "auth.user.deactivated" },
  is_admin: { on: "auth.user.admin_granted", off: "auth.user.admin_revoked" },
} as const satisfies Record<string, Record<"on" | "off", AuditEventName>>;

export class UserService {
  readonly #db: Db;
  readonly #onChange: (userId: string) => void;

  constructor(deps: { db: Db; onChange?: (userId: string) => void }) {
    this.#db = deps.db;
    this.#onChange = deps.onChange ?? (() => {});
  }

  async get(userId: string): Promise<UserRow> {
    const user = isUuid(userId) ? await findUserById(this.#db, userId) : undefined;
    if (!user) throw new AppError("auth.user.not_found", { user_id: userId });
    return user;
  }

  async view(userId: string): Promise<UserView> {
    return userView(await this.get(userId));
  }

  /** Paged, searching email and display name; the system actor is listed like any row. */
  list(
    q: string | undefined,
    offset: number,
    limit: number,
  ): Promise<Counted<UserView>> {
    const like = q ? `%${likeLiteral(q.toLowerCase())}%` : null;
    const where = like
      ? "WHERE lower(email) LIKE $1 ESCAPE '\\' OR lower(display_name) LIKE $1 ESCAPE '\\'"
      : "";
    return readPage(
      this.#db,
      `SELECT count(*) AS n FROM users ${where}`,
      `SELECT * FROM users ${where} ORDER BY created_at, id`,
      like ? [like] : [],
      { offset, limit },
      (r) => userView(toUserRow(r)),
    );
  }

  /** Active super admins: what revoking or deactivating the last one would leave (none). */
  activeSuperAdmins(): Promise<number> {
    return countOf(
      this.#db,
      "SELECT count(*) AS n FROM users WHERE is_admin = $1 AND is_active = $1",
      [true],
    );
  }

  setActive(actor: Principal, userId: string, active: boolean): Promise<UserView> {
    return this.#flip(actor, userId, "is_active", active);
  }

  setAdmin(actor: Principal, userId: string, admin: boolean): Promise<UserView> {
    return this.#flip(actor, userId, "is_admin", admin);
  }

  async #flip(actor: Principal, userId: string, column: keyof typeof FLIPPED, value: boolean) {
    const event = FLIPPED[column][value ? "on" : "off"];
    await this.get(userId);
    const view = await this.#db.transaction(async (tx) => {
      const changed = await tx.execute(
        `UPDATE users SET ${column} = $1, updated_at = $2 WHERE id = $3 AND ${column} <> $1`,
        [value, new Date().toISOString(), userId],
      );
      if (changed > 0) {
        await recordAudit(tx, {
          event,
          by: actor,
          details: { target_user_id: userId, via: actor.authMethod, key_id: actor.keyId },
        });
      }
      return userView((await findUserById(tx, userId))!);
    });
    this.#onChange(userId);
    return view;
  }
}
