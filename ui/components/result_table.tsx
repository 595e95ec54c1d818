import { Pager } from "./paging.tsx";

export interface ResultPage {
  execution_id: string;
  schema: { name: string; type: string }[];
  rows: unknown[][];
  offset: number;
  limit: number;
  total_rows: number;
  expires_at: string;
}

const NUMERIC = new Set(["integer", "bigint", "decimal", "double"]);

/** A cell's text shown in full up to this length; longer, cut with an ellipsis. */
const SHOWN = 80;
/**
 * A longer cell's hover text, cut too: an author's cell may be megabytes, and the whole of it in
 * the page (once per cell) would make the page that heavy. Sorting and the filter read it.
 */
export const MAX_TITLE = 1_000;

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

function Cell(props: { value: unknown; type: string }) {
  const { value, type } = props;
  if (value === null || value === undefined) return <td class="null">NULL</td>;
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return (
    <td
      class={NUMERIC.has(type) ? "num" : undefined}
      title={text.length > SHOWN ? cut(text, MAX_TITLE) : undefined}
    >
      {cut(text, SHOWN)}
    </td>
  );
}

/**
 * One page of a stored result: column types under the names, NULL shown as such, numbers
 * right-aligned; `pagerBase` pages through the cursor with plain links. With `/js/result_table.js`
 * a header sorts the loaded rows and the filter narrows them (this page's rows, not the result),
 * both by a cell's first `MAX_TITLE` characters.
 */
export function ResultTable(props: { page: ResultPage; pagerBase?: string }) {
  const { page } = props;
  const id = `result-${page.execution_id}`;
  return (
    <div class="result">
      {page.rows.length > 1 && (
        <div class="table-tools" data-table-tools hidden>
          <input
            type="search"
            class="table-filter"
            placeholder="Filter these rows"
            aria-label="Filter the rows on this page"
            aria-controls={id}
            data-table-filter
          />
          <span class="muted small" data-filter-count aria-live="polite" />
        </div>
      )}
      <div class="table-scroll">
        <table class="result-table" id={id} data-sortable>
          <thead>
            <tr>
              {page.schema.map((c, j) => (
                <th
                  key={c.name}
                  class={NUMERIC.has(c.type) ? "num" : undefined}
                  aria-sort="none"
                  data-column={j}
                >
                  <span class="col-name">{c.name}</span>
                  <span class="coltype">{c.type}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.rows.map((r, i) => (
              <tr key={i}>
                {page.schema.map((c, j) => <Cell key={c.name} value={r[j]} type={c.type} />)}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.rows.length === 0 && <div class="empty">The result has no rows.</div>}
      {props.pagerBase && (
        <Pager
          base={props.pagerBase}
          query={{}}
          offset={page.offset}
          limit={page.limit}
          total={page.total_rows}
        />
      )}
    </div>
  );
}
