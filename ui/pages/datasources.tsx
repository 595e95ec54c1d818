import { Card } from "../components/card.tsx";
import { Ago } from "../components/status.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { Head } from "../components/head.tsx";

export interface DatasourceSummary {
  name: string;
  display_name: string;
  dialect: string;
  readonly: boolean;
  global: boolean;
  workspace: string | null;
  last_test: { tested_at: string; ok: boolean; message: string | null } | null;
}

export interface DatasourceDetail extends DatasourceSummary {
  jdbc_url: string;
  credential: { kind: string; username?: string };
  password_set: boolean;
  properties: Record<string, unknown>;
  facts: unknown[];
  created_at: string;
  updated_at: string;
}

function TestState(props: { test: DatasourceSummary["last_test"]; now: Date }) {
  if (!props.test) return <span class="muted">never tested</span>;
  return (
    <span>
      <span class={`badge ${props.test.ok ? "ok" : "bad"}`}>
        {props.test.ok ? "reachable" : "failed"}
      </span>{" "}
      <span class="muted small">
        <Ago at={props.test.tested_at} now={props.now} />
      </span>
    </span>
  );
}

function Flags(props: { d: DatasourceSummary }) {
  return (
    <>
      <span class="badge info">{props.d.dialect.toLowerCase()}</span>
      {props.d.readonly && <span class="badge">read-only</span>}
      {props.d.global && <span class="badge">global</span>}
    </>
  );
}

/** `/datasources`: what this workspace can read from and write to. */
export function DatasourcesPage(
  props: { ctx: ShellContext; now: Date; datasources: DatasourceSummary[]; canRegister: boolean },
) {
  return (
    <AppShell title="Datasources" nav="datasources" ctx={props.ctx}>
      <PageHead
        title="Datasources"
        actions={props.canRegister && (
          <a class="btn primary" href="/datasources/new">Register datasource</a>
        )}
      >
        <p>The databases and lakes this workspace's pipelines read from and write to.</p>
      </PageHead>
      <section class="card">
        {props.datasources.length === 0
          ? (
            <div class="empty">
              <strong>No datasources yet</strong>A workspace admin registers one, or a super admin
              grants a global one to this workspace.
            </div>
          )
          : (
            <table>
              <Head cols={["Name", "Kind", "Connection"]} />
              <tbody>
                {props.datasources.map((d) => (
                  <tr key={d.name}>
                    <td>
                      <a class="title" href={`/datasources/${d.name}`}>{d.display_name}</a>
                      <div class="muted small mono">{d.name}</div>
                    </td>
                    <td>
                      <Flags d={d} />
                    </td>
                    <td>
                      <TestState test={d.last_test} now={props.now} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </section>
    </AppShell>
  );
}

/** `/datasources/{name}`: the definition (never a secret), the connection test and the schema. */
export function DatasourcePage(props: {
  ctx: ShellContext;
  now: Date;
  d: DatasourceDetail;
  schemas: string[] | null;
  schemaError: string | null;
  can: { test: boolean; introspect: boolean; edit: boolean };
  saved?: boolean;
  /** A LAKE datasource's registered tables; null for other dialects. */
  lakeTables: { namespace: string[]; name: string; format: string; location: string }[] | null;
}) {
  const { d } = props;
  const pool = (d.properties.hikari ?? {}) as Record<string, unknown>;
  return (
    <AppShell title={d.display_name} nav="datasources" ctx={props.ctx}>
      <PageHead
        trail={[["/datasources", "Datasources"]]}
        title={d.display_name}
        actions={
          <>
            {props.can.edit && <a class="btn" href={`/datasources/${d.name}/edit`}>Edit</a>}
            {props.can.test && (
              <button
                type="button"
                class="primary"
                hx-post={`/partials/datasources/${d.name}/test`}
                hx-target="#test-outcome"
              >
                Test connection
              </button>
            )}
          </>
        }
      >
        <p>
          <span class="mono small">{d.name}</span> <Flags d={d} />
        </p>
      </PageHead>
      {props.saved && <div class="banner ok" role="status">Datasource saved.</div>}
      <div class="grid cols-2">
        <Card title="Connection">
          <dl class="facts">
            <dt>URL</dt>
            <dd class="mono small">{d.jdbc_url}</dd>
            <dt>Credential</dt>
            <dd>
              {d.credential.kind}
              {d.credential.username ? ` as ${d.credential.username}` : ""}
              {d.password_set && <span class="muted small">· secret stored, never shown</span>}
            </dd>
            <dt>Workspace</dt>
            <dd>{d.global ? "global (granted)" : d.workspace ?? "—"}</dd>
            <dt>Pool</dt>
            <dd class="small">
              {Object.keys(pool).length
                ? Object.entries(pool).map(([k, v]) => `${k} ${v}`).join(" · ")
                : "defaults"}
            </dd>
            <dt>Last test</dt>
            <dd id="test-outcome">
              <TestState test={d.last_test} now={props.now} />
              {d.last_test?.message && <div class="muted small">{d.last_test.message}</div>}
            </dd>
          </dl>
        </Card>
        <Card title="Learned facts">
          {d.facts.length === 0
            ? <div class="empty">Nothing learned about this datasource yet.</div>
            : (
              <ul class="list">
                {d.facts.map((f, i) => <li key={i} class="small mono">{JSON.stringify(f)}</li>)}
              </ul>
            )}
        </Card>
      </div>
      {props.lakeTables && (
        <Card
          class="section-gap"
          title="Lake tables"
          note={<>{props.lakeTables.length} registered</>}
        >
          {props.lakeTables.length === 0
            ? <div class="empty">No table is registered on this lake yet.</div>
            : (
              <table>
                <Head cols={["Table", "Format", "Location"]} />
                <tbody>
                  {props.lakeTables.map((t) => (
                    <tr key={[...t.namespace, t.name].join(".")}>
                      <td class="mono">{[...t.namespace, t.name].join(".")}</td>
                      <td>
                        <span class="badge">{t.format}</span>
                      </td>
                      <td class="mono small">{t.location}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
        </Card>
      )}
      {props.can.introspect && (
        <Card class="section-gap" title="Schema" note="schemas → tables → columns">
          {props.schemaError
            ? <div class="banner error schema-error">{props.schemaError}</div>
            : (
              <BrowserLevel
                listClass="list schema-list"
                items={(props.schemas ?? []).map((s) => ({
                  label: s,
                  href: `/datasources/${d.name}?schema=${encodeURIComponent(s)}`,
                  get: `/partials/datasources/${d.name}/tables?schema=${encodeURIComponent(s)}`,
                }))}
                pane="tables"
                waiting="Pick a schema to list its tables."
                pushUrl="false"
              />
            )}
        </Card>
      )}
    </AppShell>
  );
}

/** The tables of one schema, each opening its columns. */
export function TablesPartial(
  props: { name: string; schema: string; tables: { name: string; type: string }[] },
) {
  if (props.tables.length === 0) return <div class="empty">No tables in {props.schema}.</div>;
  const schema = encodeURIComponent(props.schema);
  return (
    <BrowserLevel
      listClass="list"
      items={props.tables.map((t) => ({
        label: t.name,
        href: "#columns",
        get: `/partials/datasources/${props.name}/columns?schema=${schema}&table=${
          encodeURIComponent(t.name)
        }`,
        meta: t.type,
      }))}
      pane="columns"
      waiting="Pick a table to see its columns."
    />
  );
}

/**
 * One level of the schema browser: a list whose links load the next level (`get`) into the pane
 * beside it, which says what to pick until then.
 */
function BrowserLevel(props: {
  listClass: string;
  items: { label: string; href: string; get: string; meta?: string }[];
  pane: string;
  waiting: string;
  pushUrl?: "false";
}) {
  return (
    <div class="browser">
      <ul class={props.listClass}>
        {props.items.map((i) => (
          <li key={i.label}>
            <a
              href={i.href}
              hx-get={i.get}
              hx-target={`#${props.pane}`}
              hx-push-url={props.pushUrl}
            >
              {i.label}
            </a>
            {i.meta !== undefined && <span class="meta">{i.meta}</span>}
          </li>
        ))}
      </ul>
      <div id={props.pane} class="browser-pane">
        <div class="empty">{props.waiting}</div>
      </div>
    </div>
  );
}

export function ColumnsPartial(
  props: {
    table: string;
    columns: { name: string; type: string; source_type: string; nullable?: boolean }[];
  },
) {
  return (
    <table>
      <thead>
        <tr>
          <th>{props.table}</th>
          <th>Type</th>
          <th>Source type</th>
        </tr>
      </thead>
      <tbody>
        {props.columns.map((c) => (
          <tr key={c.name}>
            <td class="mono">{c.name}</td>
            <td>{c.type}</td>
            <td class="mono small muted">
              {c.source_type}
              {c.nullable === false ? " not null" : ""}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
