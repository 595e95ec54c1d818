import { Card } from "../components/card.tsx";
import { type ResultPage, ResultTable } from "../components/result_table.tsx";
import type { RunRecord } from "../components/run_view.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { assetUrl } from "../static_files.ts";

const NUMERIC = new Set(["integer", "bigint", "decimal", "double"]);
const TIME = new Set(["date", "timestamp", "timestamptz"]);

/**
 * What the chart draws, chosen from the column types: the first non-numeric column labels the
 * x axis (a time column makes a line chart, anything else bars), each numeric column is a series
 * the viewer can pick. Null when the page has no numeric column to draw.
 */
export function chartSpec(page: ResultPage) {
  const numeric = page.schema.map((c, i) => ({ ...c, i })).filter((c) => NUMERIC.has(c.type))
    .slice(0, 8);
  if (numeric.length === 0 || page.rows.length === 0) return null;
  const label = page.schema.findIndex((c) => !NUMERIC.has(c.type));
  const kind = label >= 0 && TIME.has(page.schema[label].type) ? "line" : "bar";
  return {
    kind,
    x: label >= 0
      ? page.rows.map((r) => String(r[label] ?? ""))
      : page.rows.map((_, i) => String(i + 1)),
    xLabel: label >= 0 ? page.schema[label].name : "row",
    series: numeric.map((c) => ({
      name: c.name,
      values: page.rows.map((r) => (r[c.i] === null ? null : Number(r[c.i]))),
    })),
  };
}

/** `/runs/{id}/result`: the stored result, paged, with CSV download and a chart. */
export function ResultPageView(
  props: { ctx: ShellContext; run: RunRecord; page: ResultPage | null },
) {
  const { run, page } = props;
  const chart = page ? chartSpec(page) : null;
  return (
    <AppShell title={`Result of ${run.pipeline_name}`} nav="runs" ctx={props.ctx}>
      <PageHead
        trail={[["/runs", "Runs"], [`/runs/${run.execution_id}`, run.pipeline_name]]}
        title="Result"
        actions={page && (
          <a class="btn primary" href={`/api/v1/executions/${run.execution_id}/result?format=csv`}>
            Download CSV
          </a>
        )}
      >
        {page && (
          <p>
            {page.total_rows} rows · {page.schema.length} columns · kept until{" "}
            <time datetime={page.expires_at}>
              {page.expires_at.replace("T", " ").slice(0, 19)} UTC
            </time>
          </p>
        )}
      </PageHead>
      {chart && (
        <Card
          class="chart-card"
          title="Chart"
          side={
            <span class="actions">
              <label class="muted small" for="chart-series">Series</label>
              <select id="chart-series" data-chart-series>
                {chart.series.map((s, i) => (
                  <option key={s.name} value={String(i)}>{s.name}</option>
                ))}
              </select>
              <span class="muted small">by {chart.xLabel} · this page</span>
            </span>
          }
        >
          <div class="chart" data-chart>
            <script
              type="application/json"
              data-chart-spec
              // JSON inside <script> is raw text: only "<" could end it early.
              dangerouslySetInnerHTML={{ __html: JSON.stringify(chart).replaceAll("<", "\\u003c") }}
            />
          </div>
          <link rel="stylesheet" href={assetUrl("/vendor/uPlot.min.css")} />
          <script src={assetUrl("/vendor/uPlot.iife.min.js")} defer></script>
          <script src={assetUrl("/js/chart.js")} defer></script>
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
