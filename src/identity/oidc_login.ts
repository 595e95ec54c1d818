/**
 * OIDC login (docs/access.md#signing-in-with-an-openid-provider): the redirect to a provider and
 * the callback, from the validated ID token to a user row and a landing workspace. Every refusal is
 * audited and answered as one of the login page's banners; no provider failure escapes as an
 * exception. What belongs to other domains (invitations, the landing workspace) and to later issues
 * (the `new_user` mail notice) comes in as callbacks, so identity never imports them.
 */
import { recordAudit } from "../audit/mod.ts";
import type { Logger } from "../lib/log.ts";
import { type Db, isUniqueViolation, type Queryable } from "../store/mod.ts";
import { BOOTSTRAP_PROVIDER, insertUserRow } from "./bootstrap_admin.ts";
import { type IdentityClaims, OidcClients, OidcFailure } from "./oidc_client.ts";
import { AuthorizationStateSealer } from "./oidc_state.ts";
import { SYSTEM_PROVIDER } from "./system_actor.ts";
import { findUserByEmail, findUserById, type UserRow } from "./users_repo.ts";

/** The login page banner a refusal shows (`/login?error=`). */
export type OidcRefusal = "oidc" | "domain_not_allowed" | "inactive";

export type OidcOutcome =
  | { ok: true; user: UserRow; workspace: string | undefined }
  | { ok: false; reason: OidcRefusal };

/** The facts of a first social login, for the `new_user` notice (docs/access.md#mail). */
export interface NewUserNotice {
  userId: string;
  email: string;
  displayName: string;
  provider: string;
  /** The workspace the session landed in, when one resolved. */
  workspace: string | undefined;
  at: string;
}

export interface OidcLoginOptions {
  db: Db;
  logger: Logger;
  clients: OidcClients;
  /** The session signing secret; the authorization cookie's key is derived from it. */
  secret: Uint8Array;
  allowlistDomains: string[];
  bootstrapAdminEmail?: string;
  /**
   * Runs in every login's upsert transaction: materialises the email's pending invitations in
   * active workspaces (at the first login, and after a reactivation at the next one).
   */
  materialise: (
    tx: Queryable,
    user: { userId: string; email: string; provider: string },
  ) => Promise<string[]>;
  /** The workspace to stamp (docs/decisions.md#where-a-sign-in-lands), or undefined. */
  landing: (
    user: { userId: string; email: string; provider: string; isSuperAdmin: boolean },
    options: { invitationMaterialised: boolean },
  ) => Promise<string | undefined>;
  /** Drops the user from the liveness caches after a login changed the row. */
  onChange?: (userId: string) => void;
  /**
   * A first social login happened (a new row, or the bootstrap placeholder completed). Called after
   * commit; a throwing hook never fails the login. The mail issue sends `new_user` from here.
   */
  onNewUser?: (notice: NewUserNotice) => void | Promise<void>;
}

export class OidcLogin {
  readonly #o: OidcLoginOptions;
  readonly #sealer: AuthorizationStateSealer;
  readonly #allowlist: Set<string>;

  constructor(options: OidcLoginOptions) {
    this.#o = options;
    this.#sealer = new AuthorizationStateSealer(options.secret);
    this.#allowlist = new Set(options.allowlistDomains.map((d) => d.trim().toLowerCase()));
  }

  has(provider: string): boolean {
    return this.#o.clients.has(provider);
  }

  /** The provider's authorization URL and the sealed state for the `svc_oauth2_authz` cookie. */
  async begin(
    provider: string,
  ): Promise<{ ok: true; redirectTo: string; authz: string } | { ok: false; reason: "oidc" }> {
    try {
      const { url, state } = await this.#o.clients.authorizationUrl(provider);
      return { ok: true, redirectTo: url.toString(), authz: await this.#sealer.seal(state) };
    } catch (e) {
      if (!(e instanceof OidcFailure)) throw e;
      await this.#failure(provider, e.reason, e.message);
      return { ok: false, reason: "oidc" };
    }
  }

  /** The provider callback: `query` as received, `authz` the cookie value (if any). */
  async complete(
    provider: string,
    query: URLSearchParams,
    authz: string | undefined,
  ): Promise<OidcOutcome> {
    const kept = await this.#sealer.open(authz);
    if (!kept || kept.provider !== provider) {
      await this.#failure(provider, "state_invalid", "authorization cookie missing or invalid");
      return { ok: false, reason: "oidc" };
    }
    let claims: IdentityClaims;
    try {
      const callback = new URL(this.#o.clients.redirectUri(provider));
      callback.search = query.toString();
      claims = await this.#o.clients.complete(provider, callback, kept);
    } catch (e) {
      if (!(e instanceof OidcFailure)) throw e;
      await this.#failure(provider, e.reason, e.message);
      return { ok: false, reason: "oidc" };
    }
    const email = claims.email?.trim().toLowerCase();
    if (!email || email.length > 254 || !/^[^@\s]+@[^@\s]+$/.test(email)) {
      await this.#failure(provider, "email_missing", "the ID token carries no usable email");
      return { ok: false, reason: "oidc" };
    }
    // An absent claim counts as verified (docs/decisions.md#unverified-provider-email).
    if (claims.emailVerified === false) {
      await this.#failure(provider, "email_unverified", "email_verified is false", { email });
      return { ok: false, reason: "oidc" };
    }
    const domain = email.slice(email.lastIndexOf("@") + 1);
    if (this.#allowlist.size > 0 && !this.#allowlist.has(domain)) {
      await recordAudit(this.#o.db, {
        event: "auth.login.domain_not_allowed",
        provider,
        details: { provider, email, domain },
      });
      return { ok: false, reason: "domain_not_allowed" };
    }
    return await this.#signIn(provider, claims, email);
  }

  async #signIn(provider: string, claims: IdentityClaims, email: string): Promise<OidcOutcome> {
    let upserted: { user: UserRow; first: boolean; materialised: string[] } | undefined;
    try {
      upserted = await this.#upsert(provider, claims, email);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // Another row already holds this provider subject under a different email.
      await this.#failure(provider, "subject_taken", "provider subject bound to another email", {
        email,
      });
      return { ok: false, reason: "oidc" };
    }
    if (!upserted) {
      await this.#failure(provider, "reserved_account", "the email belongs to the system actor");
      return { ok: false, reason: "oidc" };
    }
    const { user, first, materialised } = upserted;
    this.#o.onChange?.(user.id);
    if (!user.is_active) {
      await recordAudit(this.#o.db, {
        event: "auth.login.user_inactive",
        userId: user.id,
        provider,
        details: { provider },
      });
      return { ok: false, reason: "inactive" };
    }
    const workspace = await this.#o.landing(
      { userId: user.id, email: user.email, provider, isSuperAdmin: user.is_admin },
      { invitationMaterialised: materialised.length > 0 },
    );
    const at = new Date().toISOString();
    await this.#o.db.execute("UPDATE users SET last_login_at = $1 WHERE id = $2", [at, user.id]);
    if (first) await this.#notify({ ...user, last_login_at: at }, provider, workspace, at);
    return { ok: true, user: { ...user, last_login_at: at }, workspace };
  }

  /**
   * An existing email gets provider, subject, picture and display name refreshed (is_admin
   * untouched; the bootstrap placeholder is completed the same way); a new email gets a row, active
   * and not admin unless it is the bootstrap email, with its invitations materialised in the same
   * act. Undefined for the system actor's row.
   */
  async #upsert(provider: string, claims: IdentityClaims, email: string) {
    const displayName = claims.name?.trim().slice(0, 200) || email;
    const picture = claims.picture?.slice(0, 2048) ?? null;
    for (let attempt = 0;; attempt++) {
      try {
        return await this.#o.db.transaction(async (tx) => {
          const existing = await findUserByEmail(tx, email);
          if (existing?.provider === SYSTEM_PROVIDER) return undefined;
          let userId: string;
          let first: boolean;
          if (existing) {
            await tx.execute(
              `UPDATE users SET provider = $1, provider_subject = $2, display_name = $3,
                 profile_picture_url = $4, updated_at = $5 WHERE id = $6`,
              [provider, claims.sub, displayName, picture, new Date().toISOString(), existing.id],
            );
            userId = existing.id;
            first = existing.provider === BOOTSTRAP_PROVIDER;
          } else {
            const id = await insertUserRow(tx, {
              email,
              displayName,
              provider,
              providerSubject: claims.sub,
              profilePictureUrl: picture,
            }, this.#o.bootstrapAdminEmail);
            // A concurrent login or the startup placeholder inserted it first: read it again.
            if (!id) throw new RetryUpsert();
            userId = id;
            first = true;
          }
          // An inactive user's login is refused below; their invitations stay pending.
          const materialised = existing && !existing.is_active
            ? []
            : await this.#o.materialise(tx, { userId, email, provider });
          return { user: (await findUserById(tx, userId))!, first, materialised };
        });
      } catch (e) {
        if (e instanceof RetryUpsert && attempt < 2) continue;
        throw e;
      }
    }
  }

  async #notify(user: UserRow, provider: string, workspace: string | undefined, at: string) {
    try {
      await this.#o.onNewUser?.({
        userId: user.id,
        email: user.email,
        displayName: user.display_name,
        provider,
        workspace,
        at,
      });
    } catch (e) {
      this.#o.logger.warn("new_user notice hook failed", {
        user_id: user.id,
        error: e instanceof Error ? e.message : String(e),
      });
    }
  }

  async #failure(
    provider: string,
    reason: string,
    message: string,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    this.#o.logger.warn("oidc login failed", { provider, reason, cause: message });
    await recordAudit(this.#o.db, {
      event: "auth.login.oidc_error",
      provider,
      details: { provider, reason, ...details },
    });
  }
}

class RetryUpsert extends Error {}
