import { Ago, duration, StatusBadge } from "../components/status.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

export interface DashboardRun {
  execution_id: string;
  pipeline_id: string;
  pipeline_name: string;
  status: string;
  started_at: string;
  duration_ms: number | null;
  triggered_by_name: string;
}

export interface DashboardDraft {
  id: string;
  name: string;
  working_version: number;
  current_version: number | null;
  updated_at: string;
}

export interface DashboardProps {
  ctx: ShellContext;
  now: Date;
  /** Null when the session has no workspace: the page says how to get one. */
  data: {
    recent: DashboardRun[];
    failed: DashboardRun[];
    drafts: DashboardDraft[];
    pipelineCount: number;
  } | null;
}

/** `/dashboard`: the workspace at a glance — recent runs, failures, unreleased drafts. */
export function DashboardPage(props: DashboardProps) {
  const { ctx, data } = props;
  return (
    <AppShell title="Dashboard" nav="dashboard" ctx={ctx}>
      <PageHead
        title={`Good to see you, ${ctx.user.displayName}`}
        actions={ctx.workspace && (
          <>
            <a class="btn" href="/runs">All runs</a>
            <a class="btn primary" href="/pipelines">Open pipelines</a>
          </>
        )}
      >
        <p>
          {ctx.workspace
            ? (
              <>
                Workspace <strong>{ctx.workspace}</strong>
              </>
            )
            : "You are not in a workspace yet."}
        </p>
      </PageHead>
      {data === null
        ? (
          <section class="card">
            <div class="empty">
              <strong>No workspace to show</strong>
              Ask a workspace admin to add you, or pick a workspace above when you have one.
            </div>
          </section>
        )
        : <DashboardBody data={data} now={props.now} />}
    </AppShell>
  );
}

function DashboardBody(
  props: { data: NonNullable<DashboardProps["data"]>; now: Date },
) {
  const { data, now } = props;
  return (
    <>
      <div class="grid cols-3">
        <section class="card stat">
          <div class="label">Pipelines</div>
          <div class="value">{data.pipelineCount}</div>
        </section>
        <section class="card stat">
          <div class="label">Recent runs</div>
          <div class="value">{data.recent.length}</div>
        </section>
        <section class="card stat">
          <div class="label">Failed runs</div>
          <div class={data.failed.length ? "value bad" : "value"}>{data.failed.length}</div>
        </section>
      </div>
      <div class="grid cols-2 dashboard-lists">
        {[
          [
            "Recent runs",
            "/runs",
            data.recent,
            "No runs yet. Open a pipeline and run it.",
          ] as const,
          ["Failed runs", "/runs?status=FAILED", data.failed, "Nothing failed recently."] as const,
        ].map(([title, href, runs, empty]) => (
          <section class="card" key={title}>
            <header>
              <h2>{title}</h2>
              <a href={href} class="small">View all</a>
            </header>
            <RunList runs={runs} now={now} empty={empty} />
          </section>
        ))}
      </div>
      <section class="card dashboard-drafts">
        <header>
          <h2>Pipelines with a draft</h2>
          <a href="/pipelines" class="small">All pipelines</a>
        </header>
        {data.drafts.length === 0
          ? <div class="empty">Every pipeline is released.</div>
          : (
            <ul class="list">
              {data.drafts.map((d) => (
                <li key={d.id}>
                  <div>
                    <a class="title" href={`/pipelines/${encodeURIComponent(d.id)}`}>{d.name}</a>
                    <div class="meta mono">{d.id}</div>
                  </div>
                  <div class="meta">
                    <StatusBadge status="DRAFT" /> v{d.working_version}
                    {d.current_version !== null && ` · released v${d.current_version}`} ·{" "}
                    <Ago at={d.updated_at} now={now} />
                  </div>
                </li>
              ))}
            </ul>
          )}
      </section>
    </>
  );
}

function RunList(props: { runs: DashboardRun[]; now: Date; empty: string }) {
  if (props.runs.length === 0) return <div class="empty">{props.empty}</div>;
  return (
    <ul class="list">
      {props.runs.map((r) => (
        <li key={r.execution_id}>
          <div>
            <a class="title" href={`/runs/${r.execution_id}`}>{r.pipeline_name}</a>
            <div class="meta">
              {r.triggered_by_name} · <Ago at={r.started_at} now={props.now} />
            </div>
          </div>
          <div class="meta">
            <StatusBadge status={r.status} /> {duration(r.duration_ms)}
          </div>
        </li>
      ))}
    </ul>
  );
}
