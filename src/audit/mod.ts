/** The audit log: the one writer and the query. */
export {
  type AuditEvent,
  type AuditFilter,
  type AuditRecord,
  auditRow,
  queryAudit,
  recordAudit,
} from "./service.ts";
export {
  AUDIT_EVENTS,
  type AuditEventName,
  type VersionAudit,
  type VersionedKind,
} from "./events.ts";
