/** Small pieces the pipeline editor's form and node cards share. */

// deno-lint-ignore no-explicit-any
export type Obj = Record<string, any>;

/** A value as a text field shows it: lists comma-separated, nothing as empty. */
export function text(v: unknown): string {
  if (v === undefined || v === null) return "";
  return Array.isArray(v) ? v.join(",") : String(v);
}

/** A shape edit (remove a row): a submit button, so it works without the script too. */
export function RemoveButton(props: { op: string; label: string }) {
  return (
    <button
      type="submit"
      name="op"
      value={props.op}
      class="ghost remove"
      formnovalidate
      aria-label={props.label}
      title={props.label}
      data-op
    >
      Remove
    </button>
  );
}
