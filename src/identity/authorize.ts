/**
 * The scope-and-role decision (docs/access.md#roles): pure, over the operation table, the principal
 * and the workspace context the request resolved. Throws the documented code.
 */
import { AppError } from "../errors/mod.ts";
import { type Operation, type OperationRule, OPERATIONS } from "./operations.ts";
import { type Principal, rolesHeld, type WorkspaceContext } from "./types.ts";

export interface AuthorizeInput {
  operation: Operation;
  principal: Principal;
  /** The workspace the request acts in, or null when none resolved. */
  workspace: WorkspaceContext | null;
  /** Live memberships of the caller (for keys: of the issuer); tells zero-membership callers apart. */
  membershipCount: number;
}

export function authorize(
  { operation, principal, workspace, membershipCount }: AuthorizeInput,
): void {
  const rule: OperationRule = OPERATIONS[operation];
  const isKey = principal.authMethod === "API_KEY";

  if (rule.sessionOnly && isKey) throw new AppError("auth.session.required", { operation });

  if (isKey) {
    const ok = rule.scope === "admin"
      ? principal.scopes.includes("author") && principal.isSuperAdmin
      : principal.scopes.includes(rule.scope);
    if (!ok) {
      throw new AppError("auth.scope.insufficient", {
        required: rule.scope,
        held: principal.scopes,
      });
    }
  }

  if (!workspace) {
    if (rule.workspace === "required") {
      if (membershipCount === 0 && !isKey) throw new AppError("workspace.membership_required", {});
      throw new AppError("workspace.not_found", { workspace: "(none)" });
    }
    const held = rolesHeld(null, principal.isSuperAdmin);
    // Without a workspace only the caller's own and the instance's verbs remain.
    if (rule.role === "view" || rule.role === "execute" || held.includes(rule.role)) return;
    // A workspace role asked of someone with no workspace at all: the membership is what's missing.
    if (membershipCount === 0 && !isKey && rule.role !== "super_admin") {
      throw new AppError("workspace.membership_required", {});
    }
    throw new AppError("auth.role_required", { required: rule.role, held });
  }

  const held = rolesHeld(workspace.flags, principal.isSuperAdmin);
  if (held.includes(rule.role)) return;
  if (isKey) throw new AppError("auth.key_issuer_role_lost", { required: rule.role, held });
  throw new AppError("auth.role_required", { required: rule.role, held });
}
