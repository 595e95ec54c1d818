/** Rows the tests of several domains start from, inserted with SQL beneath every service. */
import { newId } from "../lib/ids.ts";
import type { Queryable, SqlValue } from "./types.ts";

/**
 * Inserts one row of `columns` into `table`, with a new id unless `columns` give one and
 * `created_at`/`updated_at` now; returns the id.
 */
export async function insertRow(
  db: Pick<Queryable, "execute">,
  table: string,
  columns: Record<string, SqlValue>,
): Promise<string> {
  const now = new Date().toISOString();
  const row: Record<string, SqlValue> = {
    id: newId(),
    ...columns,
    created_at: now,
    updated_at: now,
  };
  const names = Object.keys(row);
  await db.execute(
    `INSERT INTO ${table} (${names.join(", ")})
     VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
    Object.values(row),
  );
  return row.id as string;
}

/** A user, local, active and no admin unless `columns` say otherwise; returns its id. */
export function insertUser(
  db: Pick<Queryable, "execute">,
  email = `u-${newId().slice(-8)}@x.example`,
  columns: Record<string, SqlValue> = {},
): Promise<string> {
  return insertRow(db, "users", {
    email,
    display_name: email,
    provider: "local",
    provider_subject: email,
    ...columns,
  });
}

/** A shared (not personal) workspace; returns its id. */
export function insertWorkspace(
  db: Queryable,
  name = `ws-${newId().slice(-8)}`,
): Promise<string> {
  return insertRow(db, "workspaces", { name, display_name: name, is_personal: false });
}
