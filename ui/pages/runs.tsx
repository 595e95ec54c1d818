import { FilterBar, FilterSelect } from "../components/filter_select.tsx";
import { Pager } from "../components/paging.tsx";
import { Ago, duration, StatusBadge } from "../components/status.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { Head } from "../components/head.tsx";
import type { RunRecord } from "../components/run_view.tsx";

/** A history row: the fields of the run view's record the table shows. */
export type RunRow = Pick<
  RunRecord,
  | "execution_id"
  | "pipeline_id"
  | "pipeline_name"
  | "pipeline_version"
  | "status"
  | "started_at"
  | "duration_ms"
  | "parameters"
  | "triggered_by_name"
  | "result_row_count"
>;

const STATUSES = ["RUNNING", "SUCCESS", "FAILED", "ABORTED"];

/** `/runs`: the history, filtered by pipeline, status and day range. */
export function RunsPage(props: {
  ctx: ShellContext;
  now: Date;
  filters: { pipeline: string; status: string; from: string; to: string; who: string };
  pipelines: { id: string; name: string }[];
  /** Whose runs a super admin may pick; null for everyone else, who sees only their own. */
  people: { id: string; name: string }[] | null;
  runs: RunRow[];
  offset: number;
  limit: number;
  total: number;
}) {
  const f = props.filters;
  return (
    <AppShell title="Runs" nav="runs" ctx={props.ctx}>
      <PageHead title="Runs">
        <p>
          {props.people
            ? "Every execution in this workspace, newest first."
            : "The executions you started in this workspace, newest first."}
        </p>
      </PageHead>
      <FilterBar
        action="/runs"
        from={f.from}
        to={f.to}
        active={Boolean(f.pipeline || f.status || f.from || f.to || f.who)}
      >
        <FilterSelect
          name="pipeline"
          label="Pipeline"
          any="All pipelines"
          value={f.pipeline}
          options={props.pipelines.map((p) => [p.id, p.name])}
        />
        <FilterSelect
          name="status"
          label="Status"
          any="Any status"
          value={f.status}
          options={STATUSES.map((s) => [s, s.toLowerCase()])}
        />
        {props.people && (
          <FilterSelect
            name="who"
            label="Started by"
            any="Started by anyone"
            value={f.who}
            options={props.people.map((p) => [p.id, p.name])}
          />
        )}
      </FilterBar>
      <section class="card">
        {props.runs.length === 0
          ? (
            <div class="empty">
              <strong>No runs match</strong>Run a pipeline and it shows up here.
            </div>
          )
          : (
            <table>
              <Head
                cols={[
                  "Pipeline",
                  "Status",
                  "Parameters",
                  // Only a super admin sees others' runs; for anyone else every row is theirs.
                  ...(props.people ? ["By"] : []),
                  "Started",
                  { label: "Rows", num: true },
                  { label: "Time", num: true },
                ]}
              />
              <tbody>
                {props.runs.map((r) => (
                  <tr key={r.execution_id}>
                    <td>
                      <a class="title" href={`/runs/${r.execution_id}`}>{r.pipeline_name}</a>
                      <div class="muted small">v{r.pipeline_version}</div>
                    </td>
                    <td>
                      <StatusBadge status={r.status} />
                    </td>
                    <td class="mono small params-cell">
                      {Object.entries(r.parameters).map(([k, v]) => `${k}=${JSON.stringify(v)}`)
                        .join(" ") || <span class="muted">none</span>}
                    </td>
                    {props.people && <td>{r.triggered_by_name}</td>}
                    <td class="muted">
                      <Ago at={r.started_at} now={props.now} />
                    </td>
                    <td class="num">
                      {r.result_row_count === null
                        ? "—"
                        : <a href={`/runs/${r.execution_id}/result`}>{r.result_row_count}</a>}
                    </td>
                    <td class="num">{duration(r.duration_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
      </section>
      <Pager
        base="/runs"
        query={{
          pipeline: f.pipeline || undefined,
          status: f.status || undefined,
          from: f.from || undefined,
          to: f.to || undefined,
          who: f.who || undefined,
        }}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </AppShell>
  );
}
