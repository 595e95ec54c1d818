import { assetUrl } from "../static_files.ts";
import type { ResultPage } from "./result_table.tsx";

/** Column types the chart reads as numbers (wire types of a result schema). */
const NUMERIC = new Set([
  "integer",
  "bigint",
  "smallint",
  "decimal",
  "double",
  "float",
  "real",
  "number",
]);
const TIME = new Set(["date", "timestamp", "timestamptz"]);
const MAX_SERIES = 8;
/** A text value's longest form in the chart's data: a label shows 14 characters, a tooltip more. */
const MAX_LABEL = 80;

export type ChartKind = "line" | "bar" | "scatter";
export type ColumnRole = "time" | "measure" | "text";

/** A key, not a quantity: plotting `customer_id` draws nothing anyone reads. */
export function isIdColumn(c: { name: string; type: string }): boolean {
  return c.type === "uuid" || /^id$|_id$|^id_/i.test(c.name);
}

/**
 * What the chart may draw, chosen from the column types: id columns are left out, a time
 * column (else the first text column) goes on x, the first measure on y; a time axis draws a
 * line, anything else bars. Null when the page has no measure to draw or no rows.
 */
export function chartData(page: ResultPage) {
  const columns = page.schema.map((c, i) => ({
    name: c.name,
    type: c.type,
    i,
    role: (TIME.has(c.type) ? "time" : NUMERIC.has(c.type) ? "measure" : "text") as ColumnRole,
  })).filter((c) => !isIdColumn(c));
  const measures = columns.filter((c) => c.role === "measure").slice(0, MAX_SERIES);
  if (measures.length === 0 || page.rows.length === 0) return null;
  const x = columns.find((c) => c.role === "time") ?? columns.find((c) => c.role === "text");
  const drawn = [...columns.filter((c) => c.role !== "measure"), ...measures];
  return {
    columns: drawn.map(({ name, type, role }) => ({ name, type, role })),
    // Column-major: one array per drawn column, measures as numbers (big ones arrive as text).
    values: drawn.map((c) =>
      page.rows.map((r) => {
        const v = r[c.i];
        if (v === null || v === undefined) return null;
        if (c.role === "measure") return Number(v);
        // An author's cell may be megabytes; the page carries the data inline, so it is cut here.
        const text = typeof v === "string" ? v : JSON.stringify(v);
        return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
      })
    ),
    defaults: {
      x: x?.name ?? "",
      y: [measures[0].name],
      kind: (x?.role === "time" ? "line" : "bar") as ChartKind,
    },
  };
}

export type ChartData = NonNullable<ReturnType<typeof chartData>>;

/**
 * uPlot, the script that charts with it and the table's sort and filter: a page that may show a
 * result (now or once a live run ends) carries these once.
 */
export function ResultAssets() {
  return (
    <>
      <link rel="stylesheet" href={assetUrl("/vendor/uPlot.min.css")} />
      <script src={assetUrl("/vendor/uPlot.iife.min.js")} defer></script>
      <script src={assetUrl("/js/chart.js")} defer></script>
      <script src={assetUrl("/js/result_table.js")} defer></script>
    </>
  );
}

/**
 * A result's chart with its pickers: x, the series (several measures), and the chart type.
 * `/js/chart.js` draws it, remembers the picks per pipeline (`chartKey`) in the browser, and
 * redraws on a theme switch or a resize.
 */
export function ResultChart(props: { data: ChartData; chartKey: string; id: string }) {
  const { data, id } = props;
  const measures = data.columns.filter((c) => c.role === "measure");
  return (
    <div class="result-chart" data-chart-root>
      <form class="chart-controls" data-chart-controls aria-label="Chart settings">
        <label for={`${id}-x`}>
          <span>X axis</span>
          <select id={`${id}-x`} name="x">
            <option value="" selected={data.defaults.x === ""}>Row number</option>
            {data.columns.map((c) => (
              <option key={c.name} value={c.name} selected={c.name === data.defaults.x}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="chart-series">
          <legend>Series</legend>
          {measures.map((c) => (
            <label key={c.name} class="check">
              <input
                type="checkbox"
                name="y"
                value={c.name}
                checked={data.defaults.y.includes(c.name)}
              />
              <span class="mono">{c.name}</span>
            </label>
          ))}
        </fieldset>
        <label for={`${id}-kind`}>
          <span>Type</span>
          <select id={`${id}-kind`} name="kind">
            {(["line", "bar", "scatter"] as const).map((k) => (
              <option key={k} value={k} selected={k === data.defaults.kind}>{k}</option>
            ))}
          </select>
        </label>
      </form>
      <div class="chart" data-chart data-chart-key={props.chartKey}>
        <script
          type="application/json"
          data-chart-spec
          // JSON inside <script> is raw text: only "<" could end it early.
          dangerouslySetInnerHTML={{ __html: JSON.stringify(data).replaceAll("<", "\\u003c") }}
        />
      </div>
    </div>
  );
}
