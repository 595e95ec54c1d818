import type { ComponentChildren } from "preact";

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

/** A table in a box that scrolls sideways on a narrow screen: its header row, then its rows. */
export function ScrollTable(
  props: { class: string; cols: Parameters<typeof Head>[0]["cols"]; children: ComponentChildren },
) {
  return (
    <div class="table-scroll">
      <table class={props.class}>
        <Head cols={props.cols} />
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
