/** SQL for users. */
import { toIso } from "../lib/time.ts";
import { bool, type Queryable } from "../store/mod.ts";

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  profile_picture_url: string | null;
  provider: string;
  provider_subject: string;
  is_active: boolean;
  is_admin: boolean;
  password_hash: string | null;
  must_change_password: boolean;
  failed_login_count: number;
  locked_until: string | null;
  theme: string;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
  last_workspace_id: string | null;
}

export function toUserRow(r: Record<string, unknown>): UserRow {
  return {
    id: String(r.id),
    email: String(r.email),
    display_name: String(r.display_name),
    profile_picture_url: (r.profile_picture_url as string | null) ?? null,
    provider: String(r.provider),
    provider_subject: String(r.provider_subject),
    is_active: bool(r.is_active),
    is_admin: bool(r.is_admin),
    password_hash: (r.password_hash as string | null) ?? null,
    must_change_password: bool(r.must_change_password),
    failed_login_count: Number(r.failed_login_count ?? 0),
    locked_until: toIso(r.locked_until),
    theme: String(r.theme),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
    last_login_at: toIso(r.last_login_at),
    last_workspace_id: r.last_workspace_id === null || r.last_workspace_id === undefined
      ? null
      : String(r.last_workspace_id),
  };
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const row = await db.first<Record<string, unknown>>("SELECT * FROM users WHERE id = $1", [id]);
  return row && toUserRow(row);
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const row = await db.first<Record<string, unknown>>("SELECT * FROM users WHERE email = $1", [
    email,
  ]);
  return row && toUserRow(row);
}

/** The public view of a user (never the hash or lockout internals). */
export function userView(u: UserRow) {
  return {
    id: u.id,
    email: u.email,
    display_name: u.display_name,
    profile_picture_url: u.profile_picture_url,
    provider: u.provider,
    is_active: u.is_active,
    is_admin: u.is_admin,
    must_change_password: u.must_change_password,
    local_login: u.password_hash !== null,
    locked: u.locked_until !== null && Date.parse(u.locked_until) > Date.now(),
    created_at: u.created_at,
    last_login_at: u.last_login_at,
  };
}

export type UserView = ReturnType<typeof userView>;
