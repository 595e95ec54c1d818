import { FilterBar, FilterSelect } from "../components/filter_select.tsx";
import { ScrollTable } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { Pager } from "../components/paging.tsx";
import { Ago } from "../components/status.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** What an audit row is about, linked when the viewer may open it. */
export interface AuditSubject {
  kind: "pipeline" | "template" | "execution" | "endpoint" | "key" | "user";
  label: string;
  href?: string;
}

/** One audit row as the page draws it: names resolved, subjects found, details as stored. */
export interface AuditRowView {
  id: string;
  event: string;
  at: string;
  /** The actor's display name and email, or null when the row names no user. */
  actor: { name: string; email: string } | null;
  provider: string | null;
  /** The workspace's name, or null for an instance-wide act. */
  workspace: string | null;
  subjects: AuditSubject[];
  source_ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilters {
  event: string;
  actor: string;
  from: string;
  to: string;
  /** Only for a super admin: the whole instance or the active workspace. */
  scope: "instance" | "workspace";
}

/** `/audit`: the audit trail the viewer may read, newest first, filtered and paged. */
export function AuditPage(props: {
  ctx: ShellContext;
  now: Date;
  filters: AuditFilters;
  /** Every known event name, for the event filter. */
  events: readonly string[];
  /** Whose acts the actor filter offers. */
  people: { id: string; label: string }[];
  /** A super admin's scope switch: whether it is drawn, and whether a workspace is active. */
  scopes: { workspace: boolean } | null;
  rows: AuditRowView[];
  offset: number;
  limit: number;
  total: number;
}) {
  const f = props.filters;
  const instanceWide = props.scopes !== null && f.scope === "instance";
  const where = instanceWide ? "the whole instance" : `workspace ${props.ctx.workspace}`;
  return (
    <AppShell title="Audit log" nav="audit" ctx={props.ctx}>
      <PageHead title="Audit log">
        <p>Who did what in {where}, newest first. Open a row for everything it recorded.</p>
      </PageHead>
      <FilterBar
        action="/audit"
        from={f.from}
        to={f.to}
        active={Boolean(
          f.event || f.actor || f.from || f.to || (props.scopes && f.scope === "workspace"),
        )}
      >
        <FilterSelect
          name="event"
          label="Event"
          any="Any event"
          value={f.event}
          options={props.events.map((e) => [e, e])}
        />
        <FilterSelect
          name="actor"
          label="Actor"
          any="Anyone"
          value={f.actor}
          options={props.people.map((p) => [p.id, p.label])}
        />
        {props.scopes && (
          <select name="scope" aria-label="Scope">
            <option value="instance" selected={f.scope === "instance"}>Whole instance</option>
            {props.scopes.workspace && (
              <option value="workspace" selected={f.scope === "workspace"}>
                This workspace only
              </option>
            )}
          </select>
        )}
      </FilterBar>
      <section class="card">
        {props.rows.length === 0
          ? (
            <div class="empty">
              <strong>Nothing recorded matches</strong>Widen the filters to see more.
            </div>
          )
          : (
            <ScrollTable
              class="audit-table"
              cols={[
                "When",
                "Event",
                "Actor",
                ...(instanceWide ? ["Workspace"] : []),
                "Subject",
                "Details",
              ]}
            >
              {props.rows.map((r) => (
                <AuditRow key={r.id} row={r} now={props.now} showWorkspace={instanceWide} />
              ))}
            </ScrollTable>
          )}
      </section>
      <Pager
        base="/audit"
        query={{
          event: f.event,
          actor: f.actor,
          from: f.from,
          to: f.to,
          scope: props.scopes && f.scope === "workspace" ? "workspace" : undefined,
        }}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </AppShell>
  );
}

function AuditRow(props: { row: AuditRowView; now: Date; showWorkspace: boolean }) {
  const r = props.row;
  return (
    <tr>
      <td class="nowrap">
        <span class="mono small">{r.at.slice(0, 19).replace("T", " ")}</span>
        <div class="muted small">
          <Ago at={r.at} now={props.now} />
        </div>
      </td>
      <td class="mono small">{r.event}</td>
      <td data-label="Actor">
        {r.actor
          ? (
            <>
              {r.actor.name}
              <div class="muted small">{r.actor.email}</div>
            </>
          )
          : <span class="muted">{r.provider ?? "nobody signed in"}</span>}
      </td>
      {props.showWorkspace && (
        <td data-label="Workspace">{r.workspace ?? <span class="muted">instance</span>}</td>
      )}
      <td data-label="Subject">
        {r.subjects.length === 0 ? <span class="muted">—</span> : (
          <ul class="plain">
            {r.subjects.map((s) => (
              <li key={`${s.kind}:${s.label}`}>
                <span class="muted small">{s.kind}</span>{" "}
                {s.href
                  ? <a href={s.href}>{s.label}</a>
                  : <span class="mono small">{s.label}</span>}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        <details class="audit-details">
          <summary>
            Show<span class="sr-only">the details of {r.event} at {r.at}</span>
          </summary>
          <dl class="kv small">
            {r.provider && (
              <>
                <dt>Provider</dt>
                <dd>{r.provider}</dd>
              </>
            )}
            <dt>Source</dt>
            <dd class="mono">{r.source_ip ?? "—"}</dd>
            {r.user_agent && (
              <>
                <dt>Client</dt>
                <dd>{r.user_agent}</dd>
              </>
            )}
          </dl>
          <pre class="small">{JSON.stringify(r.details, null, 2)}</pre>
        </details>
      </td>
    </tr>
  );
}
