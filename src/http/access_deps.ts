/**
 * What the access steps need, as narrow interfaces so the pipeline reads as a list of steps and the
 * domains stay free of HTTP. Lookups here are cached for the liveness TTL
 * (docs/access.md#sessions).
 */
import type {
  AccessGuard,
  KeyKind,
  Principal,
  Scope,
  SessionTokens,
  SystemActor,
} from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { PromotionKeys } from "../promotion/mod.ts";
import type { RequestBudget } from "../shared/mod.ts";
import type { Metrics } from "../telemetry/mod.ts";
import type { AccessDirectory } from "../workspaces/mod.ts";
import type { LoginRateLimiter } from "./middleware/login_rate_limit.ts";
import type { FrontEndSettings } from "../services.ts";

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

export interface AccessDeps {
  settings: FrontEndSettings;
  /** Judges each request and writes the audit rows of the decision. */
  access: AccessGuard;
  logger: Logger;
  sessions: SessionTokens;
  keys: KeyValidator;
  directory: AccessDirectory;
  loginLimiter: LoginRateLimiter;
  /** The per-user request budget (docs/decisions.md#one-request-budget-per-user). */
  budget: RequestBudget;
  secureCookies: boolean;
  systemActor: SystemActor;
  /** The promotion key gate's decision (promotion domain). */
  promotionKeys: PromotionKeys;
  /** The instance's metrics, when `service.metrics.enabled`. */
  metrics?: Metrics;
}

export type { Principal };
