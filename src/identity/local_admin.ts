/**
 * Local-account administration (docs/access.md#local-user-administration): create with a one-time
 * password, reset, disable local access, unlock, and the caller's own theme. Each act is audited in
 * its transaction. What happens in other domains at creation (a workspace membership, pending
 * invitations) runs inside the same transaction through `onCreate`, so identity never imports the
 * workspaces domain.
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { hashSecret } from "../lib/argon2.ts";
import { isUuid, newId } from "../lib/ids.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { isUniqueViolation } from "../store/mod.ts";
import type { Principal } from "./types.ts";
import { auditBootstrapGrant, isBootstrapEmail } from "./bootstrap_admin.ts";
import { findUserByEmail, findUserById, type UserRow } from "./users_repo.ts";

export const THEMES = ["light", "dark", "system"] as const;
export type Theme = (typeof THEMES)[number];

export interface CreateLocalUserInput {
  email: unknown;
  display_name?: unknown;
  workspace?: unknown;
  author?: unknown;
  promoter?: unknown;
  admin?: unknown;
}

export interface CreatedLocalUser {
  user: UserRow;
  /** Shown once (mail off) or mailed (mail on); never stored in clear, never logged. */
  oneTimePassword: string;
  /** The act id, which keys the welcome mail's claim. */
  actId: string;
  /** Workspaces joined in this act (the requested one and materialised invitations). */
  joined: string[];
}

/** Runs inside the creating transaction: joins the requested workspace, materialises invitations. */
export type OnCreate = (
  tx: Queryable,
  user: { userId: string; email: string; provider: string },
  request: { workspace?: string; flags: { author: boolean; promoter: boolean; admin: boolean } },
  actor: Principal,
) => Promise<string[]>;

function field(reason: string, name: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field: name, reason });
}

function optionalBool(value: unknown, name: string): boolean {
  if (value === undefined || value === null || value === "") return false;
  if (typeof value === "boolean") return value;
  // HTML checkboxes arrive as "on"/"true".
  if (value === "on" || value === "true") return true;
  if (value === "false") return false;
  throw field("must be a boolean", name);
}

/** A one-time password: 20 characters of URL-safe base64 from 15 random bytes (120 bits). */
export function oneTimePassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}

/** What disabling local sign-in sets: no password, so nothing to change at the next login. */
const DISABLE_LOCAL = "password_hash = NULL, must_change_password = $2";
/** What unlocking sets: the lockout gone, the credential untouched. */
const UNLOCK = "failed_login_count = 0, locked_until = NULL";

export class LocalUserAdmin {
  readonly #db: Db;
  readonly #onCreate: OnCreate;
  readonly #onChange: (userId: string) => void;
  readonly #bootstrapAdminEmail: string | undefined;

  constructor(
    deps: {
      db: Db;
      onCreate: OnCreate;
      onChange?: (userId: string) => void;
      /**
       * An account created for this email is a super admin, at row creation only
       * (docs/access.md#bootstrap-admin).
       */
      bootstrapAdminEmail?: string;
    },
  ) {
    this.#db = deps.db;
    this.#onCreate = deps.onCreate;
    this.#onChange = deps.onChange ?? (() => {});
    this.#bootstrapAdminEmail = deps.bootstrapAdminEmail;
  }

  /** Creates a local account with a one-time password and a forced change. */
  async create(actor: Principal, input: CreateLocalUserInput): Promise<CreatedLocalUser> {
    if (typeof input.email !== "string") throw field("an email address is required", "email");
    const email = input.email.trim().toLowerCase();
    if (email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(email)) {
      throw field("not an email address", "email");
    }
    const name = input.display_name;
    if (
      name !== undefined && name !== null && (typeof name !== "string" || name.trim().length > 200)
    ) {
      throw field("must be text of at most 200 characters", "display_name");
    }
    const displayName = typeof name === "string" && name.trim() !== ""
      ? name.trim()
      : email.split("@")[0];
    const workspace =
      input.workspace === undefined || input.workspace === null || input.workspace === ""
        ? undefined
        : input.workspace;
    if (workspace !== undefined && typeof workspace !== "string") {
      throw field("must be a workspace name", "workspace");
    }
    const admin = optionalBool(input.admin, "admin");
    const flags = {
      author: optionalBool(input.author, "author") || admin,
      promoter: optionalBool(input.promoter, "promoter"),
      admin,
    };

    // The system actor's address is taken like any other: it answers email-taken, not a crash.
    if (await findUserByEmail(this.#db, email)) {
      throw new AppError("auth.user.email_taken", { email });
    }
    const password = oneTimePassword();
    const hash = await hashSecret(password);
    const id = newId();
    const superAdmin = isBootstrapEmail(email, this.#bootstrapAdminEmail);
    const actId = newId();
    const now = new Date().toISOString();
    try {
      const joined = await this.#db.transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO users (id, email, display_name, provider, provider_subject, is_active, is_admin,
             password_hash, must_change_password, created_at, updated_at)
           VALUES ($1, $2, $3, 'local', $2, $4, $5, $6, $4, $7, $7)`,
          [id, email, displayName, true, superAdmin, hash, now],
        );
        if (superAdmin) await auditBootstrapGrant(tx, id, email);
        await recordAudit(tx, {
          event: "auth.user.created",
          by: actor,
          details: {
            target_user_id: id,
            email,
            created_by: actor.userId,
            act_id: actId,
            workspace: workspace ?? null,
          },
        });
        return await this.#onCreate(tx, { userId: id, email, provider: "local" }, {
          workspace,
          flags,
        }, actor);
      });
      return {
        user: (await findUserById(this.#db, id))!,
        oneTimePassword: password,
        actId,
        joined,
      };
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError("auth.user.email_taken", { email });
      throw e;
    }
  }

  /** A new one-time credential: forces a change and clears any lockout. */
  async resetPassword(
    actor: Principal,
    userId: string,
  ): Promise<{ user: UserRow; oneTimePassword: string; actId: string }> {
    const user = await this.#localTarget(userId);
    const password = oneTimePassword();
    const hash = await hashSecret(password);
    const actId = newId();
    const updated = await this.#update(
      actor,
      user,
      "auth.password.reset",
      `password_hash = $2, must_change_password = $3, failed_login_count = 0, locked_until = NULL`,
      [hash, true],
      { act_id: actId },
    );
    return { user: updated, oneTimePassword: password, actId };
  }

  /** Clears the local password: the account can then sign in only through OIDC. */
  async disableLocal(actor: Principal, userId: string): Promise<UserRow> {
    const user = await this.#localTarget(userId);
    return await this.#update(actor, user, "auth.password.disabled", DISABLE_LOCAL, [false]);
  }

  /** Clears the lockout; the credential is untouched. */
  async unlock(actor: Principal, userId: string): Promise<UserRow> {
    const user = await this.#localTarget(userId);
    return await this.#update(actor, user, "auth.user.unlocked", UNLOCK, []);
  }

  /** The caller's own theme preference. */
  async setTheme(userId: string, theme: unknown): Promise<Theme> {
    if (typeof theme !== "string" || !(THEMES as readonly string[]).includes(theme)) {
      throw field(`one of ${THEMES.join(", ")}`, "theme");
    }
    await this.#db.execute("UPDATE users SET theme = $1, updated_at = $2 WHERE id = $3", [
      theme,
      new Date().toISOString(),
      userId,
    ]);
    return theme as Theme;
  }

  /** A user these partials may act on: the system actor is nobody's account, so "no such user". */
  async #localTarget(userId: string): Promise<UserRow> {
    const user = isUuid(userId) ? await findUserById(this.#db, userId) : undefined;
    if (!user || user.provider === "system") {
      throw new AppError("auth.user.not_found", { user_id: userId });
    }
    return user;
  }

  async #update(
    actor: Principal,
    user: UserRow,
    event: AuditEventName,
    assignments: string,
    params: (string | boolean)[],
    details: Record<string, unknown> = {},
  ): Promise<UserRow> {
    await this.#db.transaction(async (tx) => {
      await tx.execute(
        `UPDATE users SET ${assignments}, updated_at = $${params.length + 2} WHERE id = $1`,
        [
          user.id,
          ...params,
          new Date().toISOString(),
        ],
      );
      await recordAudit(tx, {
        event,
        by: actor,
        details: { target_user_id: user.id, email: user.email, ...details },
      });
    });
    this.#onChange(user.id);
    return (await findUserById(this.#db, user.id))!;
  }
}
