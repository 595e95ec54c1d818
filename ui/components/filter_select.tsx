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
