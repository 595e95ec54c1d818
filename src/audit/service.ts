/**
 * The audit log: one append-only table and one writer. `record()` runs inside the caller's
 * transaction so an audited change and its audit row commit or vanish together. The request's
 * source address and user agent come from the request context when the caller has none to give.
 */
import { AppError } from "../errors/mod.ts";
import { newId } from "../lib/ids.ts";
import { type RequestContext, requestContext } from "../lib/log.ts";
import { toIso } from "../lib/time.ts";
import {
  Conditions,
  type Queryable,
  readPage,
  type RowInsert,
  rowInsertSql,
} from "../store/mod.ts";
import type { AuditEventName } from "./events.ts";
import type { AuditRecord } from "./views.ts";
import type { Counted } from "../lib/paged_view.ts";

/** The audit record shape, plus its id and workspace: the view (views.ts). */
export type { AuditRecord };

export interface AuditEvent {
  event: AuditEventName;
  /** Who acted, as a principal: its user and provider, in place of `userId` and `provider`. */
  by?: { userId: string; provider: string };
  /** The acting user (null when none is known, e.g. a login for an unknown email). */
  userId?: string | null;
  /** The actor's provider (`local`, an OIDC name, `system`, `bootstrap`). */
  provider?: string | null;
  /** The workspace the act concerns, when it concerns one. */
  workspaceId?: string | null;
  details?: Record<string, unknown>;
}

/** Appends one audit row in the caller's transaction (or directly on the store). */
export async function recordAudit(
  db: Queryable,
  event: AuditEvent,
  at: Date = new Date(),
): Promise<void> {
  const row = auditRow(event, at);
  await db.execute(rowInsertSql(row), row.values);
}

/**
 * The row, with its time and the request's address taken now: for a write that runs later,
 * outside the request (a group commit's `insert`, see store/group_commit.ts). `ctx` is the
 * request's, for a row made later still (an endpoint's, with its run's ending).
 */
export function auditRow(
  event: AuditEvent,
  at: Date = new Date(),
  ctx: RequestContext | undefined = requestContext.getStore(),
): RowInsert {
  const values = [
    newId(),
    at.toISOString(),
    event.event,
    event.by?.userId ?? event.userId ?? null,
    event.by?.provider ?? event.provider ?? null,
    event.workspaceId ?? null,
    ctx?.sourceIp ?? null,
    ctx?.userAgent?.slice(0, 512) ?? null,
    JSON.stringify(event.details ?? {}),
  ];
  return {
    table: "audit_log",
    columns:
      "id, timestamp, event, user_id, provider, workspace_id, source_ip, user_agent, details",
    values,
  };
}

export interface AuditFilter {
  /** Restrict to one workspace (a workspace admin's view); undefined means every row. */
  workspaceId?: string;
  event?: string;
  /** The acting user's id. */
  actor?: string;
  from?: string;
  to?: string;
  offset: number;
  limit: number;
}

/** Newest first, paged. */
export function queryAudit(
  db: Queryable,
  filter: AuditFilter,
): Promise<Counted<AuditRecord>> {
  const w = new Conditions().addGiven({
    "workspace_id = $?": filter.workspaceId,
    "event = $?": filter.event,
    "user_id = $?": filter.actor,
    "timestamp >= $?": filter.from,
    "timestamp < $?": filter.to,
  });
  return readPage(
    db,
    `SELECT count(*) AS n FROM audit_log WHERE ${w.sql}`,
    `SELECT * FROM audit_log WHERE ${w.sql} ORDER BY timestamp DESC, id DESC`,
    w.params,
    filter,
    (r) => ({
      id: String(r.id),
      timestamp: toIso(r.timestamp)!,
      event: String(r.event),
      user_id: r.user_id === null ? null : String(r.user_id),
      provider: (r.provider as string | null) ?? null,
      workspace_id: r.workspace_id === null ? null : String(r.workspace_id),
      source_ip: (r.source_ip as string | null) ?? null,
      user_agent: (r.user_agent as string | null) ?? null,
      details: JSON.parse(String(r.details)),
    }),
  );
}

/** Who reads the trail and where: the reader's standing and the active workspace, if any. */
export interface AuditReader {
  isSuperAdmin: boolean;
  workspaceId: string | null;
}

/**
 * The trail as one reader may see it (docs/decisions.md#audit-rows-commit-with-the-change): a super
 * admin the whole instance unless they ask for `scope: "workspace"`; anyone else (a workspace
 * admin, as the operation matrix decided) only the active workspace's rows. REST and the audit page
 * both read through here, so the two cannot disagree on what a reader sees.
 */
export async function auditTrail(
  db: Queryable,
  reader: AuditReader,
  query: Omit<AuditFilter, "workspaceId"> & { scope?: "workspace" | "instance" },
): Promise<{ items: AuditRecord[]; total: number; instanceWide: boolean }> {
  const { scope, ...filter } = query;
  const instanceWide = reader.isSuperAdmin && scope !== "workspace";
  if (!instanceWide && !reader.workspaceId) {
    throw new AppError("workspace.membership_required", {});
  }
  const workspaceId = instanceWide ? undefined : reader.workspaceId!;
  return { ...await queryAudit(db, { ...filter, workspaceId }), instanceWide };
}

/**
 * The audit log as front ends hold it: the one writer and the trail over the instance's store, so
 * a front end records an act (a logout, a tool call) or reads the trail without holding the store.
 */
export class AuditLog {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  /** Appends one row on its own (a change's row goes in the change's transaction instead). */
  record(event: AuditEvent): Promise<void> {
    return recordAudit(this.#db, event);
  }

  /** The trail as `reader` may see it; see {@link auditTrail}. */
  trail(
    reader: AuditReader,
    query: Parameters<typeof auditTrail>[2],
  ): ReturnType<typeof auditTrail> {
    return auditTrail(this.#db, reader, query);
  }
}
