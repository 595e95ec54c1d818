/**
 * Finding a workspace by name for a change, and auditing the change: what the lifecycle and member
 * use cases share, so both answer a missing or deactivated workspace with the same 404s and write
 * audit rows of the same shape.
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { Principal } from "../identity/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { findLiveByName } from "./repo.ts";
import { WORKSPACE_NAME_RE, type WorkspaceRecord } from "./types.ts";

/** The refusal of one malformed request field. */
export function invalidField(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}

/** A live workspace or 404 `workspace.not_found`; `lock` row-locks it on PostgreSQL. */
export async function liveWorkspace(
  db: Queryable,
  name: string,
  lock = false,
): Promise<WorkspaceRecord> {
  const ws = typeof name === "string" && WORKSPACE_NAME_RE.test(name)
    ? await findLiveByName(db, name, lock)
    : undefined;
  if (!ws) throw new AppError("workspace.not_found", { workspace: String(name).slice(0, 100) });
  return ws;
}

/** A live, active workspace; 404 `workspace.inactive` while deactivated. */
export async function activeWorkspace(
  db: Queryable,
  name: string,
  lock = false,
): Promise<WorkspaceRecord> {
  const ws = await liveWorkspace(db, name, lock);
  if (ws.deactivated_at) throw new AppError("workspace.inactive", { workspace: ws.name });
  return ws;
}

/** Writes `event` by `actor` about `ws`, inside the change's own transaction `tx`. */
export function auditWorkspaceAct(
  tx: Queryable,
  actor: Principal,
  event: AuditEventName,
  ws: WorkspaceRecord,
  details: Record<string, unknown> = {},
): Promise<void> {
  return recordAudit(tx, {
    event,
    by: actor,
    workspaceId: ws.id,
    details: { workspace: ws.name, ...details },
  });
}
