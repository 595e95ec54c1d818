import type { ComponentChildren, JSX } from "preact";

/** What a control needs to be tied to its label, hint and error. */
export interface FieldControl {
  id: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
}

/**
 * One form field: label, the control, a hint, and the error under it. The control is drawn by
 * the caller (input, select, textarea, a code editor) from the attributes handed to it, so every
 * form ties errors to controls the same way: `aria-invalid` and `aria-describedby` naming the
 * hint and the error, which is announced when it appears.
 */
export function Field(props: {
  id: string;
  label: ComponentChildren;
  /** The refusal placed on this field, if any. */
  error?: string | null;
  hint?: ComponentChildren;
  /** Keeps the label for screen readers only (fields in a table row under a column head). */
  labelHidden?: boolean;
  class?: string;
  children: (control: FieldControl) => ComponentChildren;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  const errorId = props.error ? `${props.id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${props.class ? ` ${props.class}` : ""}`}>
      <label for={props.id} class={props.labelHidden ? "sr-only" : undefined}>{props.label}</label>
      {props.children({
        id: props.id,
        "aria-invalid": props.error ? "true" : undefined,
        "aria-describedby": describedBy,
      })}
      {props.hint && <span class="hint" id={hintId}>{props.hint}</span>}
      {props.error && <span class="error" id={errorId} role="alert">{props.error}</span>}
    </div>
  );
}

/** A checkbox with its label beside it, and an error under both. */
export function CheckField(props: {
  id: string;
  name: string;
  label: ComponentChildren;
  checked: boolean;
  value?: string;
  error?: string | null;
  class?: string;
}) {
  const errorId = props.error ? `${props.id}-error` : undefined;
  return (
    <div class={`field checkbox${props.class ? ` ${props.class}` : ""}`}>
      <label for={props.id}>
        <input
          type="checkbox"
          id={props.id}
          name={props.name}
          value={props.value ?? "true"}
          checked={props.checked}
          aria-invalid={props.error ? "true" : undefined}
          aria-describedby={errorId}
        />{" "}
        {props.label}
      </label>
      {props.error && <span class="error" id={errorId} role="alert">{props.error}</span>}
    </div>
  );
}

/** A form's last row: its submit button, and a way back that saves nothing. */
export function FormActions(props: { submit: ComponentChildren; cancel: string }) {
  return (
    <div class="actions">
      <button type="submit" class="primary">{props.submit}</button>
      <a class="btn ghost" href={props.cancel}>Cancel</a>
    </div>
  );
}

/** A Field whose control is one `<input>`, drawn with the attributes `input` gives it. */
export function InputField(
  props: Omit<Parameters<typeof Field>[0], "children"> & {
    input: JSX.IntrinsicElements["input"] & Record<`data-${string}`, unknown>;
  },
) {
  const { input, ...field } = props;
  return <Field {...field}>{(a) => <input {...a} {...input} />}</Field>;
}

/**
 * A Field whose control is one `<select>` of `options` (`[value, label]`), `current` chosen;
 * `empty` adds a first "none" option that sends the empty string.
 */
export function SelectField(
  props: Omit<Parameters<typeof Field>[0], "children"> & {
    select: JSX.IntrinsicElements["select"] & Record<`data-${string}`, unknown>;
    options: readonly (readonly [string, string])[];
    current: string;
    empty?: string;
  },
) {
  const { select, options, current, empty, ...field } = props;
  return (
    <Field {...field}>
      {(a) => (
        <select {...a} {...select}>
          {empty !== undefined && <option value="">{empty}</option>}
          {options.map(([v, label]) => (
            <option key={v} value={v} selected={v === current}>{label}</option>
          ))}
        </select>
      )}
    </Field>
  );
}
