/**
 * Identity as it is read: the caller, a user, an API key. One zod schema per shape, for the REST
 * responses. Never a hash or a secret, except the plaintext of a key the moment it is issued.
 */
import { z } from "zod";

const keyKind = z.enum(["user", "endpoint", "server"]);
const binding = z.object({ path: z.string() });

/** `GET /auth/me`: the principal the request resolved to. */
export const principalView = z.object({
  user_id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
  scopes: z.array(z.string()).describe("a key's scopes; empty for a session"),
  auth_method: z.enum(["OIDC", "API_KEY"]),
  key_id: z.string().optional().describe("present for a key"),
  workspace: z.string().nullable().describe("the active (session) or pinned (key) workspace"),
  is_admin: z.boolean(),
});

/** A user as administration reads it. */
export const userAccountView = z.object({
  id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
  profile_picture_url: z.string().nullable(),
  provider: z.string(),
  is_active: z.boolean(),
  is_admin: z.boolean().describe("super admin"),
  must_change_password: z.boolean(),
  local_login: z.boolean().describe("a local password is set"),
  locked: z.boolean(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
}).meta({ id: "User" });

/** One of the caller's keys. */
export const apiKeyView = z.object({
  id: z.string().describe("svck_<key_id>"),
  name: z.string(),
  kind: keyKind,
  scopes: z.array(z.string()),
  bindings: z.array(binding).describe("endpoint kind only"),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  last_used_ip: z.string().nullable(),
  is_revoked: z.boolean(),
  workspace: z.string().nullable().describe("the pinned workspace"),
}).meta({ id: "ApiKey" });

/** `POST /auth/api-keys` (201): `key` is the plaintext, answered this once. */
export const issuedKeyView = z.object({
  id: z.string(),
  name: z.string(),
  kind: keyKind,
  scopes: z.array(z.string()),
  bindings: z.array(binding),
  key: z.string().describe("the whole key; never shown again"),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});

export type ApiKeyView = z.output<typeof apiKeyView>;
export type IssuedKey = z.output<typeof issuedKeyView>;
