/**
 * What the access steps need, as narrow interfaces so the pipeline reads as the spec does and the
 * domains stay free of HTTP. Lookups here are cached for the liveness TTL (spec 1 §5.6).
 */
import type { ResolvedConfig } from "../config/mod.ts";
import type {
  KeyKind,
  Principal,
  Scope,
  SessionTokens,
  SystemActor,
  WorkspaceContext,
} from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { PromotionKeys } from "../promotion/mod.ts";
import type { RequestBudget } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import type { LoginRateLimiter } from "./middleware/login_rate_limit.ts";

export interface ValidatedKeyInfo {
  keyId: string;
  kind: KeyKind;
  scopes: Scope[];
  userId: string;
  pinnedWorkspaceId: string;
  email: string;
  display_name: string;
  provider: string;
  is_admin: boolean;
}

export interface KeyValidator {
  validate(presented: string, context: { ip?: string }): Promise<ValidatedKeyInfo>;
}

/** Cached per-request facts: user liveness, workspace resolution, membership counts. */
export interface AccessDirectory {
  /** The live user behind a session, or null when gone or inactive. */
  sessionUser(userId: string): Promise<
    {
      email: string;
      displayName: string;
      provider: string;
      isAdmin: boolean;
      mustChangePassword: boolean;
    } | null
  >;
  /** A workspace by name for this user: null for unknown, deleted, deactivated or non-member. */
  resolveByName(
    user: { userId: string; isSuperAdmin: boolean },
    name: string,
  ): Promise<WorkspaceContext | null>;
  /** A key's pinned workspace with its issuer's flags (flags null when no longer a member). */
  resolvePinned(
    user: { userId: string; isSuperAdmin: boolean },
    workspaceId: string,
  ): Promise<{ state: "active" | "deactivated" | "missing"; context: WorkspaceContext | null }>;
  /** Last-used, else first live membership; null when none. */
  defaultFor(user: { userId: string; isSuperAdmin: boolean }): Promise<WorkspaceContext | null>;
  rememberLastUsed(userId: string, workspaceId: string): Promise<void>;
  /** Any workspace by name regardless of membership; null when unknown or deleted. */
  describe(
    name: string,
  ): Promise<{ id: string; name: string; state: "active" | "deactivated" } | null>;
  membershipCount(userId: string): Promise<number>;
  /** Local changes take effect at once on this instance (others follow within the TTL). */
  forgetUser(userId: string): void;
  forgetWorkspaces(): void;
}

export interface AccessDeps {
  config: ResolvedConfig;
  db: Db;
  logger: Logger;
  sessions: SessionTokens;
  keys: KeyValidator;
  directory: AccessDirectory;
  loginLimiter: LoginRateLimiter;
  /** The per-user request budget of spec 2 §8, shared across replicas. */
  budget: RequestBudget;
  secureCookies: boolean;
  systemActor: SystemActor;
  /** The promotion key gate's decision (promotion domain). */
  promotionKeys: PromotionKeys;
}

export type { Principal };
