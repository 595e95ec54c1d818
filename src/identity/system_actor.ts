/**
 * The system actor: one user row that stamps writes belonging to no person. Created at first boot;
 * a restart leaves it untouched; replicas racing on an empty database both end up reading the one
 * row, because the insert yields to an existing row instead of failing.
 */
import { newId } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import type { Queryable } from "../store/mod.ts";
import type { Principal } from "./types.ts";

export const SYSTEM_PROVIDER = "system";
/** Under the reserved `.invalid` top-level domain (RFC 2606), so it can never receive mail. */
export const SYSTEM_EMAIL = "system@system.invalid";

export interface SystemActor {
  id: string;
  email: string;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}

/** Creates the system actor when absent and returns the stored row. */
export async function ensureSystemActor(
  db: Queryable,
  clock: () => Date = () => new Date(),
): Promise<SystemActor> {
  const now = clock().toISOString();
  await db.execute(
    `INSERT INTO users (id, email, display_name, provider, provider_subject, is_active, is_admin,
                        password_hash, must_change_password, created_at, updated_at)
     VALUES ($1, $2, 'System', $3, $3, $4, $5, NULL, $5, $6, $6)
     ON CONFLICT DO NOTHING`,
    [newId(), SYSTEM_EMAIL, SYSTEM_PROVIDER, true, false, now],
  );
  const row = await db.first<Record<string, unknown>>(
    `SELECT id, email, display_name, created_at, updated_at FROM users
     WHERE provider = $1 AND provider_subject = $1`,
    [SYSTEM_PROVIDER],
  );
  if (!row) throw new Error("system actor row missing after insert");
  return {
    id: String(row.id),
    email: String(row.email),
    displayName: String(row.display_name),
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

/**
 * The system actor as a principal, for startup work the operator configured (the bootstrap
 * datasource file, the demo seed): it carries instance authority, like a super admin.
 */
export function systemPrincipal(actor: { id: string }): Principal {
  return {
    userId: actor.id,
    email: "system",
    displayName: "System",
    provider: SYSTEM_PROVIDER,
    isSuperAdmin: true,
    authMethod: "OIDC",
    mustChangePassword: false,
    scopes: [],
  };
}
