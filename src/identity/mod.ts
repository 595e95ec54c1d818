/** Identity: users, the system actor, API keys, OIDC login and the bootstrap admin. */
export {
  ensureSystemActor,
  SYSTEM_EMAIL,
  SYSTEM_PROVIDER,
  type SystemActor,
  systemPrincipal,
} from "./system_actor.ts";
export {
  type ApiKeyBinding,
  ApiKeyService,
  type ApiKeyServiceOptions,
  type ApiKeyView,
  type IssueCapability,
  type IssuedKey,
  type Issuer,
  KEY_ID_PATTERN,
  PRESENTED_KEY_PATTERN,
  type ValidatedKey,
} from "./api_keys.ts";
export {
  findOwnLiveKeysByName,
  liveEndpointKeyBindings,
  liveEndpointKeysIn,
  setKeyBindings,
} from "./api_keys_repo.ts";
export { KEY_PREFIX } from "./api_key_types.ts";
export { AccessGuard, type AccessRequest } from "./access_audit.ts";
export { BOOTSTRAP_PROVIDER, ensureBootstrapPlaceholder } from "./bootstrap_admin.ts";
export { OidcClients, OidcFailure, type OidcProviderConfig } from "./oidc_client.ts";
export {
  type NewUserNotice,
  OidcLogin,
  type OidcLoginOptions,
  type OidcOutcome,
  type OidcRefusal,
} from "./oidc_login.ts";
export { authorize } from "./authorize.ts";
export { LocalAccounts } from "./local_accounts.ts";
export { LocalUserAdmin } from "./local_admin.ts";
export { AUTHZ_TTL_SECONDS } from "./oidc_state.ts";
export { type Operation, OPERATIONS, type RouteAccess } from "./operations.ts";
export { SessionTokens } from "./sessions.ts";
export {
  expandScopes,
  type KeyKind,
  type MembershipFlags,
  type Principal,
  type Role,
  rolesHeld,
  type Scope,
  SCOPES,
  type WorkspaceContext,
} from "./types.ts";
export { UserService } from "./users.ts";
export { findUserById, type UserRow, userView } from "./users_repo.ts";
export { apiKeyView, issuedKeyView, principalView, userAccountView } from "./views.ts";
