/**
 * Grants of global datasources to workspaces (docs/decisions.md#global-datasources-need-a-grant),
 * super admin only; the front end has judged that. A global datasource is visible in a workspace
 * only once granted there (least privilege); a super admin sees every global datasource. Both verbs
 * are idempotent and audited every time, so the trail shows repeated grants too.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { Principal } from "../identity/mod.ts";
import type { Db } from "../store/mod.ts";
import * as repo from "./repo.ts";
import type { GrantView } from "./types.ts";

export interface GrantDeps {
  db: Db;
  /** A live (not deleted) workspace by name, deactivated ones included. */
  findWorkspace(name: string): Promise<{ id: string; name: string } | null>;
}

async function target(deps: GrantDeps, name: string, workspace: string) {
  const d = typeof name === "string" ? await repo.findByName(deps.db, name) : undefined;
  if (!d) throw new AppError("datasource.not_found", { datasource: String(name).slice(0, 100) });
  if (!d.is_global) {
    throw new AppError("datasource.validation.workspace_forbidden", {
      reason: "only a global datasource is granted to workspaces",
      datasource: d.name,
    });
  }
  const ws = await deps.findWorkspace(workspace);
  if (!ws) {
    throw new AppError("workspace.not_found", { workspace: String(workspace).slice(0, 100) });
  }
  return { d, ws };
}

/** Grants a global datasource to a workspace; a repeated grant answers `already_granted`. */
export async function grantDatasource(
  deps: GrantDeps,
  actor: Principal,
  name: string,
  workspace: string,
): Promise<GrantView> {
  const { d, ws } = await target(deps, name, workspace);
  return await deps.db.transaction(async (tx) => {
    const now = new Date().toISOString();
    const inserted = await repo.insertGrant(tx, {
      datasourceId: d.id,
      workspaceId: ws.id,
      grantedBy: actor.userId,
      grantedAt: now,
    });
    const grantedAt = inserted === 1 ? now : (await repo.findGrant(tx, d.id, ws.id))!;
    const view: GrantView = {
      datasource: d.name,
      workspace: ws.name,
      granted_at: grantedAt,
      already_granted: inserted === 0,
    };
    await recordAudit(tx, {
      event: "datasource.granted",
      by: actor,
      workspaceId: ws.id,
      details: { datasource: d.name, workspace: ws.name, already_granted: view.already_granted },
    });
    return view;
  });
}

/** Revokes a grant; revoking one that does not exist succeeds too (`details.was_granted`). */
export async function revokeDatasource(
  deps: GrantDeps,
  actor: Principal,
  name: string,
  workspace: string,
): Promise<void> {
  const { d, ws } = await target(deps, name, workspace);
  await deps.db.transaction(async (tx) => {
    const removed = await repo.deleteGrant(tx, d.id, ws.id);
    await recordAudit(tx, {
      event: "datasource.revoked",
      by: actor,
      workspaceId: ws.id,
      details: { datasource: d.name, workspace: ws.name, was_granted: removed === 1 },
    });
  });
}
