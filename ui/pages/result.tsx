import { Card } from "../components/card.tsx";
import { type ResultPage, ResultTable } from "../components/result_table.tsx";
import { chartData, ResultAssets, ResultChart } from "../components/result_chart.tsx";
import { Retention, type RunRecord } from "../components/run_view.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** `/runs/{id}/result`: the stored result, paged, with CSV download and a chart. */
export function ResultPageView(
  props: { ctx: ShellContext; now: Date; run: RunRecord; page: ResultPage | null },
) {
  const { run, page } = props;
  const chart = page ? chartData(page) : null;
  return (
    <AppShell title={`Result of ${run.pipeline_name}`} nav="runs" ctx={props.ctx}>
      <PageHead
        trail={[["/runs", "Runs"], [`/runs/${run.execution_id}`, run.pipeline_name]]}
        title="Result"
        actions={page && (
          <a class="btn primary" href={`/runs/${run.execution_id}/result.csv`} download>
            Download CSV
          </a>
        )}
      >
        {page && (
          <p>
            {page.total_rows} rows · {page.schema.length} columns ·{" "}
            <Retention expiresAt={page.expires_at} now={props.now} />
          </p>
        )}
      </PageHead>
      <ResultAssets />
      {chart && (
        <Card
          class="chart-card"
          title="Chart"
          side={<span class="muted small">this page's {page!.rows.length} rows</span>}
        >
          <ResultChart data={chart} chartKey={run.pipeline_id} id="chart" />
        </Card>
      )}
      <section class="card section-gap">
        {page
          ? <ResultTable page={page} pagerBase={`/runs/${run.execution_id}/result`} />
          : (
            <div class="empty">
              <strong>No result to show</strong>
              {run.status === "SUCCESS"
                ? "The result has expired; run the pipeline again."
                : `This run ended ${run.status.toLowerCase()} and kept no result.`}
            </div>
          )}
      </section>
    </AppShell>
  );
}
