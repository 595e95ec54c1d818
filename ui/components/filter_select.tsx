import type { ComponentChildren } from "preact";

/**
 * One filter of a list page's toolbar: a select whose first choice, the empty value, filters
 * nothing (`any` says so), then each `[value, label]`, `value` chosen.
 */
export function FilterSelect(props: {
  name: string;
  label: string;
  any: string;
  value?: string;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <select name={props.name} aria-label={props.label}>
      <option value="">{props.any}</option>
      {props.options.map(([v, label]) => (
        <option key={v} value={v} selected={v === props.value}>{label}</option>
      ))}
    </select>
  );
}

/**
 * A list page's filter toolbar: its filters, then a day range (`from`, `to`: whole UTC days),
 * Filter, and Clear back to the unfiltered `action` while any filter is set.
 */
export function FilterBar(props: {
  action: string;
  from: string;
  to: string;
  active: boolean;
  children: ComponentChildren;
}) {
  return (
    <form method="get" action={props.action} class="toolbar filters">
      {props.children}
      <input type="date" name="from" value={props.from} aria-label="From day (UTC)" />
      <input type="date" name="to" value={props.to} aria-label="To day (UTC)" />
      <button type="submit">Filter</button>
      {props.active && <a class="btn ghost" href={props.action}>Clear</a>}
    </form>
  );
}
