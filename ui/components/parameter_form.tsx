import type { ParameterView } from "../../src/pipelines/mod.ts";

/**
 * The input for one declared parameter: its type decides the control. `id` defaults to
 * `param-<name>`; `prefill: false` leaves the default out of the value (a form that sends only
 * what was typed, such as an endpoint's try-it panel).
 */
export function ParameterControl(
  props: { name: string; decl: ParameterView; id?: string; prefill?: boolean },
) {
  const { name, decl } = props;
  const id = props.id ?? `param-${name}`;
  const value = decl.default === undefined || decl.default === null || props.prefill === false
    ? ""
    : Array.isArray(decl.default)
    ? decl.default.join(",")
    : String(decl.default);
  const common = {
    id,
    name,
    required: decl.required === true,
    // The declared bounds, for the browser's own controls (a date picker's range, a spinner's
    // stops); the form posts with novalidate, so the run's refusal names a bound it passes.
    min: decl.min === undefined ? undefined : String(decl.min),
    max: decl.max === undefined ? undefined : String(decl.max),
    maxLength: decl.type === "string" ? decl.max_length : undefined,
    "aria-describedby": `${id}-hint ${id}-error`,
    "data-type": decl.type,
  };
  if (decl.enum?.length) {
    return (
      <select {...common}>
        {!decl.required && <option value="">—</option>}
        {decl.enum.map((v) => (
          <option key={String(v)} value={String(v)} selected={String(v) === value}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  }
  switch (decl.type) {
    case "boolean":
      return (
        <select {...common}>
          {!decl.required && <option value="">—</option>}
          <option value="true" selected={value === "true"}>true</option>
          <option value="false" selected={value === "false"}>false</option>
        </select>
      );
    case "integer":
      return <input {...common} type="number" step="1" value={value} />;
    case "number":
      return <input {...common} type="number" step="any" value={value} />;
    case "date":
      return <input {...common} type="date" value={value} />;
    case "timestamp":
      return <input {...common} type="text" value={value} placeholder="2026-01-31T12:00:00Z" />;
    default:
      return (
        <input
          {...common}
          type="text"
          value={value}
          placeholder={decl.type.endsWith("_list") ? "comma-separated values" : undefined}
        />
      );
  }
}

/** A declaration's bounds in words, as the refusal of a value outside them says them. */
export function boundsText(decl: ParameterView): string {
  const parts: string[] = [];
  if (decl.min !== undefined && decl.max !== undefined) {
    parts.push(`from ${decl.min} to ${decl.max}`);
  } else if (decl.min !== undefined) parts.push(`at least ${decl.min}`);
  else if (decl.max !== undefined) parts.push(`at most ${decl.max}`);
  if (decl.max_length !== undefined) parts.push(`at most ${decl.max_length} characters`);
  return parts.join(", ");
}

/**
 * The run form generated from a pipeline's declared parameters (derived ones are computed by the
 * run and not asked for). Errors land under the field they name.
 */
export function ParameterForm(
  props: { action: string; csrf: string; parameters: Record<string, ParameterView> },
) {
  const asked = Object.entries(props.parameters).filter(([, d]) => !d.derived);
  return (
    <form method="post" action={props.action} class="run-form" data-run-form novalidate>
      <input type="hidden" name="_csrf" value={props.csrf} />
      {asked.length === 0 && <p class="muted">This pipeline takes no parameters.</p>}
      <div class="param-grid">
        {asked.map(([name, decl]) => (
          <div class="field" key={name}>
            <label for={`param-${name}`}>
              <span class="mono">{name}</span>
              {decl.required && <span class="req" aria-hidden="true">*</span>}
            </label>
            <ParameterControl name={name} decl={decl} />
            <span class="hint" id={`param-${name}-hint`}>
              {[decl.type, boundsText(decl)].filter(Boolean).join(", ")}
              {decl.description ? ` — ${decl.description}` : ""}
            </span>
            <span class="error" id={`param-${name}-error`} data-error-for={name} />
          </div>
        ))}
      </div>
      <div class="form-error banner error" data-form-error hidden />
      {
        /* Enabled by /js/run.js: a run starts over the execute route and streams its progress, so
          a click before the script is there would post the form to a page that only draws it. */
      }
      <button type="submit" class="primary" disabled>Run pipeline</button>
    </form>
  );
}
