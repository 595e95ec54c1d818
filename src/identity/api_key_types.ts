/**
 * The API key vocabulary (docs/access.md#api-keys): the presented form and the shapes the service
 * answers with.
 *
 * Presented form `svck_<key_id>.<secret>`: key_id 12 and secret 48 characters of lowercase RFC 4648
 * base32 (see lib/base32.ts for why lowercase). The store keeps the 12-character key_id as the row
 * id and an Argon2id hash of the WHOLE presented key; the API calls a key `svck_<key_id>`.
 */
import type { ApiKeyBinding } from "./api_keys_repo.ts";
import type { KeyKind, MembershipFlags, Principal, Scope } from "./types.ts";

export type { ApiKeyBinding } from "./api_keys_repo.ts";
/** A key as its owner reads it, and the one answer that carries its plaintext: the views. */
export type { ApiKeyView, IssuedKey } from "./views.ts";

/** What the API puts before a bare key_id, in presented keys and key ids alike. */
export const KEY_PREFIX = "svck_";
/** Characters of base32 in a key_id (60 bits). */
export const KEY_ID_LENGTH = 12;
/** Characters of base32 in a key's secret (240 bits). */
export const KEY_SECRET_LENGTH = 48;
/** The exact shape of a presented key; group 1 is the key_id. */
export const PRESENTED_KEY_PATTERN = /^svck_([a-z2-7]{12})\.([a-z2-7]{48})$/;
/** The API id of a key; group 1 is the key_id. */
export const KEY_ID_PATTERN = /^svck_([a-z2-7]{12})$/;
/** Every kind a key may be issued as. */
export const KEY_KINDS: readonly KeyKind[] = ["user", "endpoint", "server"];
/** The accepted `expires_in` values. */
export const EXPIRY_PRESETS = ["7d", "30d", "90d", "1y", "never", "custom"] as const;

/** The issuing principal, with the workspace its request resolved (sessions: the active one). */
export type Issuer = Principal & { activeWorkspaceId: string };

/** The issuer's membership in the pinned workspace. */
export interface IssueCapability {
  flags: MembershipFlags | null;
  isSuperAdmin: boolean;
}

/** What a valid key resolves to: enough to build a Principal without another query. */
export interface ValidatedKey {
  /** `svck_<key_id>`. */
  keyId: string;
  kind: KeyKind;
  /** Expanded (author ⊃ execute ⊃ read), `admin` capped; empty for endpoint and server keys. */
  scopes: Scope[];
  bindings: ApiKeyBinding[];
  userId: string;
  pinnedWorkspaceId: string;
  name: string;
  email: string;
  display_name: string;
  provider: string;
  is_admin: boolean;
}
