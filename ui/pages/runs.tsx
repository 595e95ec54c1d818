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
  | "parent_execution_id"
  | "parent_node_id"
>;

/** A run and the child runs under it, each with how deep it sits. */
function nested(roots: RunRow[], children: RunRow[]): { run: RunRow; depth: number }[] {
  const byParent = Map.groupBy(children, (c) => c.parent_execution_id ?? "");
  const out: { run: RunRow; depth: number }[] = [];
  const visit = (run: RunRow, depth: number) => {
    out.push({ run, depth });
    for (const c of byParent.get(run.execution_id) ?? []) visit(c, depth + 1);
  };
  for (const r of roots) visit(r, 0);
  return out;
}

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
  /** Child runs of `runs` at any depth, drawn under the node of the run that started them. */
  childRuns: RunRow[];
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
                {nested(props.runs, props.childRuns).map(({ run: r, depth }) => (
                  <tr
                    key={r.execution_id}
                    class={depth > 0 ? `child-run depth-${Math.min(depth, 3)}` : undefined}
                    data-child-of={depth > 0 ? r.parent_execution_id ?? undefined : undefined}
                  >
                    <td>
                      {depth > 0 && <span aria-hidden="true" class="child-mark">↳</span>}
                      <a class="title" href={`/runs/${r.execution_id}`}>{r.pipeline_name}</a>
                      <div class="muted small">
                        v{r.pipeline_version}
                        {r.parent_execution_id && (
                          <>
                            {" · "}
                            {depth > 0 ? "child run of node " : "child run of "}
                            {depth > 0
                              ? <span class="mono">{r.parent_node_id}</span>
                              : <a href={`/runs/${r.parent_execution_id}`}>its parent run</a>}
                          </>
                        )}
                      </div>
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
