/** The audit log: the one writer and the query. */
export {
  type AuditEvent,
  type AuditFilter,
  AuditLog,
  type AuditReader,
  type AuditRecord,
  auditRow,
  queryAudit,
  recordAudit,
} from "./service.ts";
export {
  AUDIT_EVENTS,
  type AuditEventName,
  KNOWN_AUDIT_EVENTS,
  type VersionAudit,
  type VersionedKind,
} from "./events.ts";
export { auditRowView } from "./views.ts";
