/**
 * Every audit event name, one typed union as the error codes are: sign-in and access, workspaces,
 * datasources, mail, endpoints, promotion, tool calls, content and executions. `recordAudit` takes
 * nothing else, so a misspelt event does not compile.
 */

/** What the version lifecycle audits, written `${kind}.${suffix}` (versions/transitions.ts). */
export const VERSION_AUDITS = [
  "created",
  "version.released",
  "version.discarded",
  "version.restored",
  "version.purged",
  "current_switched",
  "deleted",
] as const;
export type VersionAudit = (typeof VERSION_AUDITS)[number];
export type VersionedKind = "pipeline" | "template";

export const AUDIT_EVENTS = [
  // Sign-in, passwords, users
  "auth.login.success",
  "auth.login.domain_not_allowed",
  "auth.login.user_inactive",
  "auth.login.oidc_error",
  "auth.login.bad_credentials",
  "auth.login.locked",
  "auth.password.seeded",
  "auth.password.changed",
  "auth.password.reset",
  "auth.password.disabled",
  "auth.password.change_failed",
  "auth.password.change_locked",
  "auth.user.created",
  "auth.user.unlocked",
  "auth.user.deactivated",
  "auth.user.activated",
  "auth.user.admin_granted",
  "auth.user.admin_revoked",
  "auth.logout",
  // Keys and access decisions
  "auth.api_key.created",
  "auth.api_key.revoked",
  "auth.api_key.used",
  "auth.api_key.rejected",
  "auth.scope.denied",
  "auth.super_admin_acting",
  "auth.workspace.created",
  "auth.workspace.header_rejected",
  // Workspaces and members
  "workspace.member_added",
  "workspace.member_invited",
  "workspace.invitation_revoked",
  "workspace.invitation_materialised",
  "workspace.member_removed",
  "workspace.member_flags_changed",
  "workspace.deactivated",
  "workspace.reactivated",
  "workspace.updated",
  "workspace.deleted",
  // Datasources
  "datasource.created",
  "datasource.updated",
  "datasource.deleted",
  "datasource.granted",
  "datasource.revoked",
  "datasource.credential_decrypted",
  "datasource.credential_decrypt_failed",
  // Mail, endpoints, promotion, tool calls
  "mail.sent",
  "mail.failed",
  "endpoint.key_bound",
  "endpoint.key_unbound",
  "endpoint.served",
  "endpoint.published",
  "endpoint.unpublished",
  "endpoint.enabled",
  "endpoint.disabled",
  "auth.promotion.rejected",
  "auth.promotion.accepted",
  "mcp.tool.called",
  "mcp.tool.write",
  // Content and executions
  "pipeline.version.imported",
  "pipeline.promoted",
  "template.version.imported",
  "execution_aborted",
  "execution.reaped",
  "execution.events_swept",
  "execution.records_swept",
  "demo.content_seeded",
] as const;

export type AuditEventName =
  | (typeof AUDIT_EVENTS)[number]
  | `${VersionedKind}.${VersionAudit}`;

/** Every name `recordAudit` may write, sorted: what an audit filter offers to choose from. */
export const KNOWN_AUDIT_EVENTS: readonly string[] = [
  ...AUDIT_EVENTS,
  ...(["pipeline", "template"] as const).flatMap((kind) =>
    VERSION_AUDITS.map((suffix) => `${kind}.${suffix}`)
  ),
].sort();
