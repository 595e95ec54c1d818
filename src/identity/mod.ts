/** Identity: users, the system actor (sessions, keys and logins arrive with the access issue). */
export {
  ensureSystemActor,
  SYSTEM_EMAIL,
  SYSTEM_PROVIDER,
  type SystemActor,
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
