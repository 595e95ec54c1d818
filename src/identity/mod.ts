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
export { findOwnLiveKeysByName, liveEndpointKeyBindings, setKeyBindings } from "./api_keys_repo.ts";
export { KEY_PREFIX } from "./api_key_types.ts";
export { BOOTSTRAP_PROVIDER, ensureBootstrapPlaceholder } from "./bootstrap_admin.ts";
export { OidcClients, OidcFailure, type OidcProviderConfig } from "./oidc_client.ts";
export {
  type NewUserNotice,
  OidcLogin,
  type OidcLoginOptions,
  type OidcOutcome,
  type OidcRefusal,
} from "./oidc_login.ts";
export { rolesHeld } from "./types.ts";
