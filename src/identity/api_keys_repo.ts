/**
 * SQL for API keys (table `api_keys`, migration 0002). `id` is the bare 12-character key_id; the
 * `svck_` prefix belongs to the API and is added by the service. Scopes and bindings are JSON text.
 */
import { toIso } from "../lib/time.ts";
import { bool, type Queryable } from "../store/mod.ts";
import type { KeyKind } from "./types.ts";

export interface ApiKeyBinding {
  path: string;
}

export interface ApiKeyRow {
  id: string;
  user_id: string;
  workspace_id: string;
  name: string;
  kind: KeyKind;
  /** As issued (never expanded); a legacy row may still carry `admin`. */
  scopes: string[];
  bindings: ApiKeyBinding[];
  key_hash: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  is_revoked: boolean;
  revoked_at: string | null;
}

/** A key joined with what validation needs of its owner. */
export interface ApiKeyWithOwner extends ApiKeyRow {
  owner: {
    email: string;
    display_name: string;
    provider: string;
    is_active: boolean;
    is_admin: boolean;
  };
}

function jsonArray<T>(value: unknown): T[] {
  try {
    const parsed = JSON.parse(String(value ?? "[]"));
    return Array.isArray(parsed) ? parsed as T[] : [];
  } catch {
    return [];
  }
}

function toRow(r: Record<string, unknown>): ApiKeyRow {
  return {
    id: String(r.id),
    user_id: String(r.user_id),
    workspace_id: String(r.workspace_id),
    name: String(r.name),
    kind: String(r.kind) as KeyKind,
    scopes: jsonArray<string>(r.scopes),
    bindings: jsonArray<ApiKeyBinding>(r.bindings),
    key_hash: String(r.key_hash),
    created_at: toIso(r.created_at)!,
    expires_at: toIso(r.expires_at),
    last_used_at: toIso(r.last_used_at),
    last_used_ip: (r.last_used_ip as string | null) ?? null,
    is_revoked: bool(r.is_revoked),
    revoked_at: toIso(r.revoked_at),
  };
}

export async function insertApiKey(
  db: Queryable,
  k: Omit<ApiKeyRow, "last_used_at" | "last_used_ip" | "is_revoked" | "revoked_at">,
): Promise<void> {
  await db.execute(
    `INSERT INTO api_keys (id, user_id, workspace_id, name, kind, scopes, bindings, key_hash,
       created_at, expires_at, is_revoked)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      k.id,
      k.user_id,
      k.workspace_id,
      k.name,
      k.kind,
      JSON.stringify(k.scopes),
      JSON.stringify(k.bindings),
      k.key_hash,
      k.created_at,
      k.expires_at,
      false,
    ],
  );
}

/** A non-revoked key with its owner (validation step 1), or undefined. */
export async function findLiveKeyWithOwner(
  db: Queryable,
  keyId: string,
): Promise<ApiKeyWithOwner | undefined> {
  const r = await db.first<Record<string, unknown>>(
    `SELECT k.*, u.email AS owner_email, u.display_name AS owner_display_name,
       u.provider AS owner_provider, u.is_active AS owner_is_active, u.is_admin AS owner_is_admin
     FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.id = $1 AND k.is_revoked = $2`,
    [keyId, false],
  );
  if (!r) return undefined;
  return {
    ...toRow(r),
    owner: {
      email: String(r.owner_email),
      display_name: String(r.owner_display_name),
      provider: String(r.owner_provider),
      is_active: bool(r.owner_is_active),
      is_admin: bool(r.owner_is_admin),
    },
  };
}

/** Any key by id, revoked included. */
export async function findKeyById(db: Queryable, keyId: string): Promise<ApiKeyRow | undefined> {
  const r = await db.first<Record<string, unknown>>("SELECT * FROM api_keys WHERE id = $1", [
    keyId,
  ]);
  return r && toRow(r);
}

/** A user's keys, revoked included, newest first, with the pinned workspace's name. */
export async function listKeysOfUser(
  db: Queryable,
  userId: string,
): Promise<(ApiKeyRow & { workspace_name: string | null })[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT k.*, w.name AS workspace_name
     FROM api_keys k LEFT JOIN workspaces w ON w.id = k.workspace_id
     WHERE k.user_id = $1
     ORDER BY k.created_at DESC, k.id DESC`,
    [userId],
  );
  return rows.map((r) => ({
    ...toRow(r),
    workspace_name: r.workspace_name === null || r.workspace_name === undefined
      ? null
      : String(r.workspace_name),
  }));
}

/** Revokes a live key; returns false when it was already revoked (or is unknown). */
export async function markRevoked(db: Queryable, keyId: string, at: string): Promise<boolean> {
  const changed = await db.execute(
    "UPDATE api_keys SET is_revoked = $2, revoked_at = $3 WHERE id = $1 AND is_revoked = $4",
    [keyId, true, at, false],
  );
  return changed > 0;
}

/**
 * Records the latest use; never moves last_used_at backwards (another replica may have written a
 * later use already).
 */
export async function updateLastUsed(
  db: Queryable,
  keyId: string,
  at: string,
  ip: string | null,
): Promise<void> {
  await db.execute(
    `UPDATE api_keys SET last_used_at = $2, last_used_ip = $3
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`,
    [keyId, at, ip],
  );
}

/** The owner's live (not revoked) keys named `name`, of any kind, oldest first. */
export async function findOwnLiveKeysByName(
  db: Queryable,
  userId: string,
  name: string,
): Promise<ApiKeyRow[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT * FROM api_keys WHERE user_id = $1 AND name = $2 AND is_revoked = $3
     ORDER BY created_at, id`,
    [userId, name, false],
  );
  return rows.map(toRow);
}

/** Replaces a key's bindings (endpoint kind; published endpoints' bind and unbind). */
export async function setKeyBindings(
  db: Queryable,
  keyId: string,
  bindings: ApiKeyBinding[],
): Promise<void> {
  await db.execute("UPDATE api_keys SET bindings = $2 WHERE id = $1", [
    keyId,
    JSON.stringify(bindings),
  ]);
}

/** Every live endpoint-kind key that carries bindings: what the endpoint tree is gated by. */
export async function liveEndpointKeyBindings(
  db: Queryable,
): Promise<{ id: string; name: string; workspace_id: string; bindings: ApiKeyBinding[] }[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT id, name, workspace_id, bindings FROM api_keys
     WHERE kind = 'endpoint' AND is_revoked = $1 AND bindings <> '[]'`,
    [false],
  );
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    workspace_id: String(r.workspace_id),
    bindings: jsonArray<ApiKeyBinding>(r.bindings),
  }));
}

/**
 * Every live endpoint-kind key pinned to a workspace, whoever owns it, with its bindings: what a
 * promotion binds endpoints to by key name (docs/decisions.md#what-a-promotion-carries).
 */
export async function liveEndpointKeysIn(
  db: Queryable,
  workspaceId: string,
): Promise<{ id: string; name: string; bindings: ApiKeyBinding[] }[]> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT id, name, bindings FROM api_keys
     WHERE kind = 'endpoint' AND is_revoked = $1 AND workspace_id = $2 ORDER BY created_at, id`,
    [false, workspaceId],
  );
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    bindings: jsonArray<ApiKeyBinding>(r.bindings),
  }));
}
