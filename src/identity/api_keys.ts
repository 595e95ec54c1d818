/**
 * API keys (docs/access.md#api-keys): the one service callers construct. Issuance rules live in
 * api_key_issue.ts, validation and its cache in api_key_validate.ts, the coalesced last-used
 * writes in api_key_last_used.ts; listing and revocation are here, beside the cache they drop.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { verifySecret } from "../lib/argon2.ts";
import type { Logger } from "../lib/log.ts";
import { Broadcast, type SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { mintKey, planIssue } from "./api_key_issue.ts";
import { LastUsedWriter } from "./api_key_last_used.ts";
import {
  type ApiKeyView,
  type IssueCapability,
  type IssuedKey,
  type Issuer,
  KEY_ID_PATTERN,
  KEY_PREFIX,
  type ValidatedKey,
} from "./api_key_types.ts";
import { ApiKeyValidator } from "./api_key_validate.ts";
import { findKeyById, listKeysOfUser, markRevoked } from "./api_keys_repo.ts";
import type { Principal, Scope } from "./types.ts";

export { parseExpiry, parseIsoTimestamp } from "./api_key_issue.ts";
export {
  type ApiKeyBinding,
  type ApiKeyView,
  EXPIRY_PRESETS,
  type IssueCapability,
  type IssuedKey,
  type Issuer,
  KEY_ID_LENGTH,
  KEY_ID_PATTERN,
  KEY_KINDS,
  KEY_PREFIX,
  KEY_SECRET_LENGTH,
  PRESENTED_KEY_PATTERN,
  type ValidatedKey,
} from "./api_key_types.ts";

/** Construction options of {@link ApiKeyService}. */
export interface ApiKeyServiceOptions {
  db: Db;
  logger: Logger;
  /** Validation and owner-liveness cache TTL (`service.auth.api-keys.cache-ttl-seconds`). */
  cacheTtlSeconds: number;
  /** Scopes of a user key whose request names none; default `["read"]`. */
  defaultScopes?: Scope[];
  /** Clock in epoch milliseconds (tests). */
  now?: () => number;
  /** The Argon2id verifier (tests count its calls). */
  verify?: typeof verifySecret;
  /** Decides whether one successful validation writes `auth.api_key.used`; default 1 in 100. */
  sampleUsed?: () => boolean;
  /** Window over which last-used writes of one key coalesce into one UPDATE; default 1000 ms. */
  lastUsedFlushMs?: number;
  /** Cache capacity; the oldest entry is dropped beyond it. Default 10,000. */
  maxCacheEntries?: number;
  /**
   * Told after an endpoint-kind key with bindings is issued or an endpoint-kind key is revoked:
   * the published endpoints' binding index (a higher domain) is wired here rather than imported.
   */
  onBindingsChanged?: () => void | Promise<void>;
}

/** Issues, validates, lists and revokes API keys; one per process, shared by every request. */
export class ApiKeyService {
  readonly #db: Db;
  readonly #defaultScopes: Scope[];
  readonly #now: () => number;
  readonly #lastUsed: LastUsedWriter;
  readonly #validator: ApiKeyValidator;
  readonly #onBindingsChanged?: () => void | Promise<void>;
  readonly #logger: Logger;
  /** Revocations and owner changes, applied here at once and on every following instance. */
  readonly #forget = new Broadcast<{ key?: string; user?: string }>(
    "auth:api-keys.forget",
    (change) => {
      if (change.key) this.#validator.invalidate(change.key);
      if (change.user) this.#validator.invalidateUser(change.user);
    },
  );

  constructor(options: ApiKeyServiceOptions) {
    this.#db = options.db;
    this.#defaultScopes = options.defaultScopes ?? ["read"];
    this.#now = options.now ?? Date.now;
    this.#onBindingsChanged = options.onBindingsChanged;
    this.#logger = options.logger;
    this.#lastUsed = new LastUsedWriter(
      options.db,
      options.logger,
      options.lastUsedFlushMs ?? 1000,
    );
    this.#validator = new ApiKeyValidator({
      db: options.db,
      logger: options.logger,
      ttlMs: Math.max(0, options.cacheTtlSeconds) * 1000,
      maxEntries: options.maxCacheEntries ?? 10_000,
      now: this.#now,
      verify: options.verify ?? verifySecret,
      sampleUsed: options.sampleUsed ?? (() => Math.random() < 0.01),
      lastUsed: this.#lastUsed,
    });
  }

  /** Mints a key by the issuance rules; the plaintext is in the answer and nowhere else. */
  async issue(issuer: Issuer, input: unknown, capability: IssueCapability): Promise<IssuedKey> {
    const plan = planIssue(issuer, input, capability, {
      scopes: this.#defaultScopes,
      now: this.#now,
    });
    const issued = await mintKey(this.#db, issuer, plan);
    if (issued.bindings.length > 0) await this.#onBindingsChanged?.();
    return issued;
  }

  /** Validates a presented key (steps 1–6, in order); throws auth.api_key.invalid / expired. */
  validate(presented: unknown, context: { ip?: string } = {}): Promise<ValidatedKey> {
    return this.#validator.validate(presented, context);
  }

  /**
   * Drops the cache entry of a key (`svck_…` or the bare key_id) here at once, and on every
   * instance that follows the shared store (others would otherwise wait out the TTL).
   */
  invalidate(keyId: string): void {
    this.#forget.send({ key: keyId });
  }

  /** Drops every cache entry of a user's keys (deactivation, role changes), everywhere. */
  invalidateUser(userId: string): void {
    this.#forget.send({ user: userId });
  }

  /** Follows the invalidations other instances send over the shared store. */
  follow(shared: SharedStore): Promise<void> {
    return this.#forget.open(shared, this.#logger);
  }

  /** Writes every pending last-used update now; failures are logged at warn, never thrown. */
  flush(): Promise<void> {
    return this.#lastUsed.flush();
  }

  /** Flushes pending writes and stops the timer; later uses wait for an explicit flush(). */
  async close(): Promise<void> {
    await this.#forget.close();
    await this.#lastUsed.close();
  }

  /** The caller's keys, revoked included, newest first. */
  async listOwn(userId: string): Promise<ApiKeyView[]> {
    const rows = await listKeysOfUser(this.#db, userId);
    return rows.map((r) => ({
      id: KEY_PREFIX + r.id,
      name: r.name,
      kind: r.kind,
      scopes: r.scopes,
      bindings: r.bindings,
      created_at: r.created_at,
      expires_at: r.expires_at,
      last_used_at: r.last_used_at,
      last_used_ip: r.last_used_ip,
      is_revoked: r.is_revoked,
      workspace: r.workspace_name,
    }));
  }

  /**
   * Revokes a key: its owner, or an admin of its pinned workspace (`canAdminWorkspace`). Anything
   * else is the same 404 as an unknown id. Revoking a revoked key succeeds without a second audit.
   */
  async revoke(
    actor: Principal,
    keyId: string,
    canAdminWorkspace: (workspaceId: string) => Promise<boolean>,
  ): Promise<void> {
    const match = KEY_ID_PATTERN.exec(keyId);
    const notFound = () => new AppError("auth.api_key.not_found", { key_id: keyId.slice(0, 100) });
    if (!match) throw notFound();
    const row = await findKeyById(this.#db, match[1]);
    if (!row) throw notFound();
    const owner = row.user_id === actor.userId;
    if (!owner && !(await canAdminWorkspace(row.workspace_id))) throw notFound();
    if (!row.is_revoked) {
      await this.#db.transaction(async (tx) => {
        if (!(await markRevoked(tx, row.id, new Date(this.#now()).toISOString()))) return;
        await recordAudit(tx, {
          event: "auth.api_key.revoked",
          by: actor,
          workspaceId: row.workspace_id,
          details: {
            key_id: KEY_PREFIX + row.id,
            name: row.name,
            kind: row.kind,
            owner_id: row.user_id,
            via: owner ? "owner" : "workspace_admin",
          },
        });
      });
    }
    this.invalidate(row.id);
    if (row.kind === "endpoint" && row.bindings.length > 0) await this.#onBindingsChanged?.();
  }
}
