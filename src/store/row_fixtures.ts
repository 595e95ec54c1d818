/** Rows the tests of several domains start from, inserted with SQL beneath every service. */
import { newId } from "../lib/ids.ts";
import type { Queryable } from "./types.ts";

/** A local, active, non-admin user; returns its id. */
export async function insertUser(
  db: Queryable,
  email = `u-${newId().slice(-8)}@x.example`,
): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await db.execute(
    `INSERT INTO users (id, email, display_name, provider, provider_subject, created_at, updated_at)
     VALUES ($1, $2, $2, 'local', $2, $3, $3)`,
    [id, email, now],
  );
  return id;
}

/** A shared (not personal) workspace; returns its id. */
export async function insertWorkspace(
  db: Queryable,
  name = `ws-${newId().slice(-8)}`,
): Promise<string> {
  const id = newId();
  const now = new Date().toISOString();
  await db.execute(
    `INSERT INTO workspaces (id, name, display_name, is_personal, created_at, updated_at)
     VALUES ($1, $2, $2, $3, $4, $4)`,
    [id, name, false, now],
  );
  return id;
}
