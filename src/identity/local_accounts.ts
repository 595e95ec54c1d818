/**
 * Local password accounts (docs/access.md#local-accounts): login with lockout, the self-service
 * change, and the bootstrap seed. Unknown email, OIDC-only account and wrong password are one
 * answer with one cost: the no-row path verifies against a dummy hash so timing does not tell them
 * apart. While an account is locked nothing is hashed and the failure count does not move.
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { hashSecret, verifySecret } from "../lib/argon2.ts";
import { newId } from "../lib/ids.ts";
import type { Logger } from "../lib/log.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { findUserByEmail, findUserById, type UserRow } from "./users_repo.ts";

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

export type LoginOutcome =
  | { ok: true; user: UserRow }
  | { ok: false; reason: "credentials" | "locked" | "inactive" };

export interface LocalAccountOptions {
  db: Db;
  logger: Logger;
  maxFailures: number;
  lockMinutes: number;
  onChange?: (userId: string) => void;
  /** The Argon2id verifier; tests count its calls. */
  verify?: typeof verifySecret;
}

export class LocalAccounts {
  readonly #o: LocalAccountOptions;
  readonly #verify: typeof verifySecret;
  #dummyHash?: Promise<string>;

  constructor(options: LocalAccountOptions) {
    this.#o = options;
    this.#verify = options.verify ?? verifySecret;
  }

  /** An Argon2id hash nobody knows the input of, made once, for the no-row path. */
  #dummy(): Promise<string> {
    this.#dummyHash ??= hashSecret(crypto.randomUUID());
    return this.#dummyHash;
  }

  async login(emailInput: unknown, passwordInput: unknown): Promise<LoginOutcome> {
    const email = typeof emailInput === "string" ? emailInput.trim().toLowerCase() : "";
    const password = typeof passwordInput === "string" ? passwordInput : "";
    const user = email.length > 0 && email.length <= 254 && password.length <= 1024
      ? await findUserByEmail(this.#o.db, email)
      : undefined;

    if (!user || user.password_hash === null || user.provider === "system") {
      await this.#verify(password, await this.#dummy());
      await recordAudit(this.#o.db, {
        event: "auth.login.bad_credentials",
        details: { provider: "local" },
      });
      return { ok: false, reason: "credentials" };
    }
    const now = Date.now();
    if (user.locked_until && Date.parse(user.locked_until) > now) {
      await this.#audit(this.#o.db, user, "auth.login.bad_credentials", { reason: "locked" });
      return { ok: false, reason: "locked" };
    }
    if (!(await this.#verify(password, user.password_hash))) {
      const lockedUntil = await this.#countFailure(user);
      return { ok: false, reason: lockedUntil ? "locked" : "credentials" };
    }
    if (!user.is_active) {
      await this.#audit(this.#o.db, user, "auth.login.user_inactive", { provider: "local" });
      return { ok: false, reason: "inactive" };
    }
    const at = new Date().toISOString();
    await this.#o.db.execute(
      "UPDATE users SET failed_login_count = 0, locked_until = NULL, last_login_at = $1 WHERE id = $2",
      [at, user.id],
    );
    return {
      ok: true,
      user: { ...user, failed_login_count: 0, locked_until: null, last_login_at: at },
    };
  }

  /**
   * Counts one failure (an expired lock starts a fresh budget); engages the lock at the limit.
   * Returns when the lock ends if this failure locked the account, else null.
   */
  async #countFailure(user: UserRow): Promise<string | null> {
    return await this.#o.db.transaction(async (tx) => {
      const expired = user.locked_until !== null;
      const row = await tx.first<{ n: number }>(
        `UPDATE users SET failed_login_count = ${
          expired ? "1" : "failed_login_count + 1"
        }, locked_until = NULL
         WHERE id = $1 RETURNING failed_login_count AS n`,
        [user.id],
      );
      const count = Number(row?.n ?? 0);
      if (count >= this.#o.maxFailures) {
        const until = new Date(Date.now() + this.#o.lockMinutes * 60_000).toISOString();
        await tx.execute("UPDATE users SET locked_until = $1 WHERE id = $2", [until, user.id]);
        await this.#audit(tx, user, "auth.login.locked", { failures: count, locked_until: until });
        return until;
      }
      await this.#audit(tx, user, "auth.login.bad_credentials", {
        provider: "local",
        failures: count,
      });
      return null;
    });
  }

  /**
   * The self-service change: lockout first (no hashing while locked), then the current password
   * (failures count on the login counter), then the policy. Returns whether the change was forced.
   */
  async changePassword(
    userId: string,
    current: unknown,
    next: unknown,
  ): Promise<{ forced: boolean }> {
    const user = await findUserById(this.#o.db, userId);
    if (!user || user.password_hash === null) {
      throw new AppError("auth.login.bad_credentials", { reason: "no local password" });
    }
    if (user.locked_until && Date.parse(user.locked_until) > Date.now()) {
      await this.#audit(this.#o.db, user, "auth.password.change_locked", {});
      throw new AppError("auth.login.locked", { locked_until: user.locked_until });
    }
    if (typeof current !== "string" || !(await this.#verify(current, user.password_hash))) {
      const lockedUntil = await this.#countFailure(user);
      await this.#audit(
        this.#o.db,
        user,
        lockedUntil ? "auth.password.change_locked" : "auth.password.change_failed",
        {},
      );
      if (lockedUntil) throw new AppError("auth.login.locked", { locked_until: lockedUntil });
      throw new AppError("auth.login.bad_credentials", {
        reason: "current password does not match",
      });
    }
    if (typeof next !== "string" || next.length < PASSWORD_MIN || next.length > PASSWORD_MAX) {
      throw new AppError("auth.password.policy", {
        min: PASSWORD_MIN,
        max: PASSWORD_MAX,
        field: "new_password",
      });
    }
    const hash = await hashSecret(next);
    await this.#o.db.transaction(async (tx) => {
      await tx.execute(
        `UPDATE users SET password_hash = $1, must_change_password = $2, failed_login_count = 0, locked_until = NULL,
         updated_at = $3 WHERE id = $4`,
        [hash, false, new Date().toISOString(), user.id],
      );
      await this.#audit(tx, user, "auth.password.changed", { forced: user.must_change_password });
    });
    this.#o.onChange?.(user.id);
    return { forced: user.must_change_password };
  }

  /**
   * The bootstrap seed: create-if-absent, always must_change_password, admin granted at creation
   * with actor `bootstrap`. Warns while the seeded credential is unchanged, and when the configured
   * email no longer names the seeded account.
   */
  async seedBootstrap(
    email: string,
    seed: { password?: string; hash?: string },
  ): Promise<"created" | "exists"> {
    const lower = email.toLowerCase();
    const seeded = await this.#o.db.first<{ user_id: string }>(
      "SELECT user_id FROM audit_log WHERE event = 'auth.password.seeded' ORDER BY timestamp LIMIT 1",
    );
    if (seeded) {
      const account = await findUserById(this.#o.db, String(seeded.user_id));
      if (account && account.email !== lower) {
        this.#o.logger.warn("auth.local.bootstrap_mismatch", {
          configured: lower,
          seeded: account.email,
        });
      } else if (account?.must_change_password) {
        this.#o.logger.warn("auth.local.one_time_credential_pending", { email: account.email });
      }
      return "exists";
    }
    if (await findUserByEmail(this.#o.db, lower)) return "exists";
    const hash = seed.hash ?? await hashSecret(seed.password!);
    const id = newId();
    const now = new Date().toISOString();
    try {
      await this.#o.db.transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO users (id, email, display_name, provider, provider_subject, is_active, is_admin,
             password_hash, must_change_password, created_at, updated_at)
           VALUES ($1, $2, $3, 'local', $2, $4, $4, $5, $4, $6, $6)`,
          [id, lower, lower.split("@")[0], true, hash, now],
        );
        await recordAudit(tx, {
          event: "auth.user.admin_granted",
          provider: "bootstrap",
          details: { target_user_id: id, actor: "bootstrap" },
        });
        await recordAudit(tx, {
          event: "auth.password.seeded",
          userId: id,
          provider: "local",
          details: { email: lower },
        });
      });
    } catch (e) {
      // A replica seeding at the same moment won; its row is the seed.
      if (await findUserByEmail(this.#o.db, lower)) return "exists";
      throw e;
    }
    this.#o.logger.warn("auth.local.one_time_credential_pending", { email: lower });
    return "created";
  }

  #audit(db: Queryable, user: UserRow, event: AuditEventName, details: Record<string, unknown>) {
    return recordAudit(db, { event, userId: user.id, provider: user.provider, details });
  }
}
