/**
 * The audit rows of an access decision, written here rather than by a front end, so REST, tool
 * calls and UI handlers cannot disagree: a refusal on either axis is `auth.scope.denied`; a super
 * admin acting where they hold no membership is `auth.super_admin_acting` on every governed
 * request, reads included; a workspace header on a key request is `auth.workspace.header_rejected`.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError, type ErrorCode } from "../errors/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { authorize, type AuthorizeInput } from "./authorize.ts";
import { inSpan } from "../lib/tracing.ts";
import type { Principal } from "./types.ts";

/** Refusals of the two axes; the other refusals (no workspace, session only) are not denials. */
const DENIALS = new Set<ErrorCode>([
  "auth.scope.insufficient",
  "auth.role_required",
  "auth.key_issuer_role_lost",
]);

/** What a front end says about the request being judged, for the audit row. */
export interface AccessRequest {
  path: string;
  method: string;
}

/** `authorize()`, with the denial and super-admin rows of the decision written to the audit log. */
export async function authorizeAudited(
  db: Queryable,
  input: AuthorizeInput,
  request: AccessRequest,
): Promise<void> {
  const { operation, principal, workspace } = input;
  try {
    authorize(input);
  } catch (e) {
    if (e instanceof AppError && DENIALS.has(e.code)) {
      await recordAudit(db, {
        event: "auth.scope.denied",
        by: principal,
        workspaceId: workspace?.id ?? null,
        details: {
          operation,
          code: e.code,
          ...e.details,
          key_id: principal.keyId,
          path: request.path,
        },
      });
    }
    throw e;
  }
  if (workspace?.implicit) {
    await recordAudit(db, {
      event: "auth.super_admin_acting",
      by: principal,
      workspaceId: workspace.id,
      details: {
        operation,
        workspace: workspace.name,
        path: request.path,
        method: request.method,
        acting_via: "super_admin",
      },
    });
  }
}

/** A key request named a workspace: audited, then refused 400 `workspace.header_forbidden`. */
export async function refuseWorkspaceHeader(
  db: Queryable,
  principal: Principal,
  header: string,
): Promise<never> {
  await recordAudit(db, {
    event: "auth.workspace.header_rejected",
    by: principal,
    details: { key_id: principal.keyId, header: header.slice(0, 100) },
  });
  throw new AppError("workspace.header_forbidden", {});
}

/**
 * The access decision as front ends hold it: {@link authorizeAudited} and
 * {@link refuseWorkspaceHeader} over the instance's store, so REST, tool calls and UI handlers judge
 * a request without holding the store themselves.
 */
export class AccessGuard {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  /** `authorize()`, its denial and super-admin rows written to the audit log. */
  authorize(input: AuthorizeInput, request: AccessRequest): Promise<void> {
    return inSpan(
      "authorize",
      { "svc.operation": input.operation },
      () => authorizeAudited(this.#db, input, request),
    );
  }

  /** A key request named a workspace: audited, then refused 400 `workspace.header_forbidden`. */
  refuseWorkspaceHeader(principal: Principal, header: string): Promise<never> {
    return refuseWorkspaceHeader(this.#db, principal, header);
  }
}
