/** Result pages for tests of the result table. */
import type { ResultPage } from "./result_table.tsx";

/** One stored page of `(note, n)` rows, all of them, as the result table is handed it. */
export function notePage(rows: unknown[][]): ResultPage {
  return {
    execution_id: "e1",
    schema: [{ name: "note", type: "varchar" }, { name: "n", type: "integer" }],
    rows,
    offset: 0,
    limit: 100,
    total_rows: rows.length,
    expires_at: "2026-01-01T00:00:00Z",
  };
}
