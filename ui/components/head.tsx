/** A table's header row: each column a label, right-aligned when it holds numbers. */
export function Head(props: { cols: (string | { label: string; num: true })[] }) {
  return (
    <thead>
      <tr>
        {props.cols.map((c) =>
          typeof c === "string"
            ? <th key={c}>{c}</th>
            : <th key={c.label} class="num">{c.label}</th>
        )}
      </tr>
    </thead>
  );
}
