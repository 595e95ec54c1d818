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

/** A form's last row: its submit button, and (given `cancel`) a way back that saves nothing. */
export function FormActions(props: { submit: ComponentChildren; cancel?: string }) {
  return (
    <div class="actions">
      <button type="submit" class="primary">{props.submit}</button>
      {props.cancel && <a class="btn ghost" href={props.cancel}>Cancel</a>}
    </div>
  );
}

/** What a Field takes besides its control: the props its wrappers pass through. */
type FieldProps = Omit<Parameters<typeof Field>[0], "children">;

/** A control's name and what it holds: what `bind` gives a field beside its id and error. */
interface Named {
  name?: string;
  value?: string;
}

/**
 * Ties a form's fields to the draft it shows and the refusal it carries. `bind(key)` is a
 * field's id (`<prefix>-<key>`, `_` as `-`, or `<prefix>-<tail>`), the refusal placed on it, and
 * its control's name and value, so each field names its key once; `on(key)` is the refusal alone,
 * for a control `bind` does not fit (a checkbox).
 */
export function draftFields<D extends object>(
  prefix: string,
  draft: D,
  error?: { field?: unknown; message: string },
) {
  const on = (key: string) => error?.field === key ? error.message : null;
  const bind = (key: keyof D & string, tail = key.replaceAll("_", "-")) => ({
    id: `${prefix}-${tail}`,
    error: on(key),
    name: key,
    value: String(draft[key] ?? ""),
  });
  return { on, bind };
}

/** A Field whose control is one `<input>` named `name` holding `value`, with `input`'s attributes. */
export function InputField(
  props: FieldProps & Named & {
    input?: JSX.IntrinsicElements["input"] & Record<`data-${string}`, unknown>;
  },
) {
  const { name, value, input, ...field } = props;
  return <Field {...field}>{(a) => <input {...a} name={name} value={value} {...input} />}</Field>;
}

/** A Field whose control is one `<textarea>` named `name` holding `value`. */
export function TextareaField(
  props: FieldProps & Named & {
    textarea?: JSX.IntrinsicElements["textarea"] & Record<`data-${string}`, unknown>;
  },
) {
  const { name, value, textarea, ...field } = props;
  return (
    <Field {...field}>
      {(a) => <textarea {...a} name={name} {...textarea}>{value}</textarea>}
    </Field>
  );
}

/**
 * A Field whose control is one `<select>` named `name` of `options` (`[value, label]`), `value`
 * chosen; `empty` adds a first "none" option that sends the empty string.
 */
export function SelectField(
  props: FieldProps & Named & {
    select?: JSX.IntrinsicElements["select"] & Record<`data-${string}`, unknown>;
    options: readonly (readonly [string, string])[];
    empty?: string;
  },
) {
  const { name, value, select, options, empty, ...field } = props;
  return (
    <Field {...field}>
      {(a) => (
        <select {...a} name={name} {...select}>
          {empty !== undefined && <option value="">{empty}</option>}
          {options.map(([v, label]) => (
            <option key={v} value={v} selected={v === value}>{label}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** An email address as a person's account takes it: what an email input asks of the browser. */
export const EMAIL = {
  type: "email",
  required: true,
  maxLength: 254,
  autocomplete: "off",
} as const;
