import { Ago, duration, StatusBadge } from "../components/status.tsx";
import { Icon } from "../components/icons.tsx";
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

export interface DashboardPipeline {
  id: string;
  name: string;
  title: string;
  /** The working version's status; null when it has none. */
  status: string | null;
}

/** The demo's first steps (src/http/ui/dashboard.tsx decides each from what is so). */
export interface FirstSteps {
  pipeline: { id: string; title: string };
  ran: boolean;
  /** The latest successful run's result page, once there is one. */
  resultHref: string | null;
  chartSeen: boolean;
  /** Null for whom may not publish: the list stops at the chart. */
  publishing: { endpointHref: string | null } | null;
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
    /** The first pipelines by name, each with Run when `canRun`. */
    pipelines: DashboardPipeline[];
    canRun: boolean;
    firstSteps: FirstSteps | null;
  } | null;
}

/**
 * `/dashboard`: the workspace at a glance — its pipelines to run, recent runs, failures,
 * unreleased drafts — and in the demo workspace the first steps until they are done.
 */
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
  const runCard = (title: string, href: string, runs: DashboardRun[], empty: string) => (
    <section class="card">
      <header>
        <h2>{title}</h2>
        <a href={href} class="small">View all</a>
      </header>
      <RunList runs={runs} now={now} empty={empty} />
    </section>
  );
  return (
    <>
      {data.firstSteps && <FirstStepsCard steps={data.firstSteps} />}
      <div class="grid cols-3 dashboard-stats">
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
        <PipelineList data={data} />
        {runCard(
          "Recent runs",
          "/runs",
          data.recent,
          "No runs yet. Run a pipeline and it shows up here.",
        )}
      </div>
      <div class="grid cols-2 dashboard-lists">
        {runCard("Failed runs", "/runs?status=FAILED", data.failed, "Nothing failed recently.")}
        <section class="card">
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
      </div>
    </>
  );
}

/** The workspace's first pipelines by name, each a click from its run form. */
function PipelineList(props: { data: NonNullable<DashboardProps["data"]> }) {
  const { data } = props;
  return (
    <section class="card">
      <header>
        <h2>Pipelines</h2>
        <a href="/pipelines" class="small">
          {data.pipelineCount > data.pipelines.length ? `All ${data.pipelineCount}` : "Browse"}
        </a>
      </header>
      {data.pipelines.length === 0
        ? (
          <div class="empty">
            <strong>No pipelines yet</strong>
            A pipeline reads your datasources and delivers one result.
          </div>
        )
        : (
          <ul class="list pipeline-list">
            {data.pipelines.map((p) => (
              <li key={p.id}>
                <div>
                  <a class="title" href={`/pipelines/${p.id}`}>{p.title}</a>
                  <div class="meta mono">{p.name}</div>
                </div>
                <div class="row-end">
                  {p.status && p.status !== "RELEASED" && <StatusBadge status={p.status} />}
                  {data.canRun && (
                    <a class="btn compact" href={`/pipelines/${p.id}/run`}>
                      <Icon name="play" />
                      Run<span class="sr-only">{` ${p.title}`}</span>
                    </a>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}

/**
 * Four steps from the demo content to an API call, each ticked when it is so (or two, for whom
 * may not publish). A step's link is its page; a step that needs the one before says so instead.
 */
function FirstStepsCard(props: { steps: FirstSteps }) {
  const { steps } = props;
  const p = steps.pipeline;
  const items: {
    title: string;
    text: string;
    done: boolean;
    href: string | null;
    act: string;
    wait: string;
  }[] = [
    {
      title: "Run a demo pipeline",
      text: `${p.title} ranks a country's best customers from the demo shop.`,
      done: steps.ran,
      href: `/pipelines/${p.id}/run`,
      act: "Run it",
      wait: "",
    },
    {
      title: "Open its chart",
      text: "The result page pages the rows, charts them and downloads them as CSV.",
      done: steps.chartSeen,
      href: steps.resultHref,
      act: "Open the result",
      wait: "After a run",
    },
  ];
  if (steps.publishing) {
    items.push(
      {
        title: "Publish it",
        text: "Give the released pipeline a URL under /api/x, its parameters as path segments.",
        done: steps.publishing.endpointHref !== null,
        href: `/pipelines/${p.id}/publish`,
        act: "Publish",
        wait: "",
      },
      {
        title: "Call it",
        text: "Send a request from the endpoint's page with a key made there, or copy its curl.",
        done: false,
        href: steps.publishing.endpointHref,
        act: "Try it",
        wait: "After publishing",
      },
    );
  }
  const done = items.filter((i) => i.done).length;
  return (
    <section class="card first-steps" aria-labelledby="first-steps-title">
      <header>
        <div>
          <h2 id="first-steps-title">Your first minutes</h2>
          <p class="muted small">From the demo content to an API call: each step ticks itself.</p>
        </div>
        <span class="muted small">
          <progress max={items.length} value={done} aria-label="First steps done" /> {done} of{" "}
          {items.length} done
        </span>
      </header>
      <ol class="steps">
        {items.map((item, i) => (
          <li key={item.title} class={item.done ? "done" : undefined}>
            <span class="step-mark" aria-hidden="true">
              {item.done ? <Icon name="check" /> : i + 1}
            </span>
            <div class="step-text">
              <strong>
                <span class="sr-only">{item.done ? "Done: " : "To do: "}</span>
                {item.title}
              </strong>
              <span class="muted small">{item.text}</span>
            </div>
            {item.href
              ? (
                <a class={item.done ? "btn compact" : "btn compact primary"} href={item.href}>
                  {item.act}
                </a>
              )
              : <span class="muted small">{item.wait}</span>}
          </li>
        ))}
      </ol>
    </section>
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
