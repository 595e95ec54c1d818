import { Field } from "./field.tsx";
import { Choice, type Obj, RemoveButton, text } from "./form_parts.tsx";
import type { PipelineFormProps } from "./pipeline_form.tsx";

// The node types of DECISIONS.md "node schema", as choices.
const NODE_TYPES: [string, string][] = [
  ["DQL", "DQL · read"],
  ["PIPELINE", "PIPELINE · child pipeline"],
  ["CALCULATOR", "CALCULATOR · derive parameters"],
  ["DML", "DML · write rows"],
  ["DDL", "DDL · change tables"],
];

/** Up to this many nodes, dependencies are picked as chips; beyond, typed as ids. */
export const CHIP_LIMIT = 16;

/** Which node types a field belongs to; the script hides the others as the type changes. */
const FOR = {
  source: "DQL DML DDL",
  template: "DQL DML DDL",
  pipeline: "PIPELINE",
  output: "DQL PIPELINE",
};

/** One node of the pipeline editor's form: its fields, its dependencies, its output. */
export function NodeCard(
  props: PipelineFormProps & {
    node: Obj;
    i: number;
    ids: string[];
    err: (f: string) => string | undefined;
  },
) {
  const { node, i } = props;
  const f = (k: string) => `n.${i}.${k}`;
  const id = (k: string) => `n-${i}-${k}`;
  const type = String(node.type ?? "DQL");
  // A group of another type's fields stays hidden unless the node carries such a field anyway.
  const carries: Record<keyof typeof FOR, unknown[]> = {
    source: [node.source],
    template: [node.template, node.sql],
    pipeline: [node.pipeline],
    output: [node.output],
  };
  const shown = (group: keyof typeof FOR) =>
    FOR[group].split(" ").includes(type) || carries[group].some((v) => v !== undefined)
      ? undefined
      : true;
  const others = props.ids.map((x, j) => [x, j] as const).filter(([, j]) => j !== i);
  const deps: string[] = Array.isArray(node.depends_on) ? node.depends_on : [];
  const depsError = props.err(f("depends_on"));
  // Template or inline SQL: one of them (the script disables the other, so only one posts).
  const query = node.template !== undefined || node.sql === undefined ? "template" : "sql";
  const target = text(node.output?.target);
  const forTarget = (targets: string, ...values: unknown[]) =>
    targets.split(" ").includes(target) || values.some((v) => v !== undefined) ? undefined : true;
  return (
    <fieldset class="node-card" data-node-card={i}>
      <legend>
        <span class="badge node-type">{type}</span>
        <span class="mono" data-node-title={i}>{text(node.id) || `node ${i + 1}`}</span>
        <span class="spacer" />
        <RemoveButton op={`remove_node:${i}`} label={`Remove node ${text(node.id)}`} />
      </legend>
      <div class="grid cols-3">
        <Field id={id("id")} label="Id" error={props.err(f("id"))}>
          {(a) => (
            <input
              {...a}
              name={f("id")}
              value={text(node.id)}
              class="mono"
              required
              pattern="[a-z][a-z0-9_]{0,63}"
              data-node-id={i}
            />
          )}
        </Field>
        <Field id={id("type")} label="Type" error={props.err(f("type"))}>
          {(a) => (
            <select {...a} name={f("type")} data-node-type>
              <Choice value="" current={type} options={NODE_TYPES} />
            </select>
          )}
        </Field>
        <div data-for-types={FOR.source} hidden={shown("source")}>
          <Field
            id={id("source")}
            label="Source"
            hint="A datasource, or tempdb for staged tables"
            error={props.err(f("source"))}
          >
            {(a) => (
              <input {...a} name={f("source")} value={text(node.source)} list="pf-datasources" />
            )}
          </Field>
        </div>
        <div data-for-types={FOR.pipeline} hidden={shown("pipeline")}>
          <Field
            id={id("pipeline_id")}
            label="Child pipeline id"
            error={props.err(f("pipeline_id"))}
          >
            {(a) => (
              <input
                {...a}
                name={f("pipeline_id")}
                value={text(node.pipeline?.id)}
                class="mono"
              />
            )}
          </Field>
        </div>
      </div>
      <div data-for-types={FOR.template} hidden={shown("template")}>
        <div class="query-choice" role="radiogroup" aria-label={`${text(node.id)} query from`}>
          <span class="label">Query from</span>
          <label class="chip">
            <input
              type="radio"
              name={f("query")}
              value="template"
              checked={query === "template"}
              data-query-choice
            />
            A template
          </label>
          <label class="chip">
            <input
              type="radio"
              name={f("query")}
              value="sql"
              checked={query === "sql"}
              data-query-choice
            />
            Inline SQL
          </label>
        </div>
        <div
          class="grid cols-3"
          data-query="template"
          hidden={query !== "template" && !props.err(f("template_id")) &&
            !props.err(f("template_version"))}
        >
          <Field
            id={id("template_id")}
            label="Template"
            hint="A released SQL template, pinned by version"
            class="span-2"
            error={props.err(f("template_id"))}
          >
            {(a) => (
              <input
                {...a}
                name={f("template_id")}
                value={text(node.template?.id)}
                list="pf-templates"
                class="mono"
              />
            )}
          </Field>
          <Field
            id={id("template_version")}
            label="Version"
            error={props.err(f("template_version"))}
          >
            {(a) => (
              <input
                {...a}
                name={f("template_version")}
                value={text(node.template?.version)}
                inputMode="numeric"
              />
            )}
          </Field>
        </div>
        <div data-query="sql" hidden={query !== "sql" && !props.err(f("sql"))}>
          <Field id={id("sql")} label="SQL" error={props.err(f("sql"))}>
            {(a) => (
              <textarea {...a} name={f("sql")} rows={4} spellcheck={false} data-editor="sql">
                {text(node.sql)}
              </textarea>
            )}
          </Field>
        </div>
      </div>
      <div data-for-types={FOR.pipeline} hidden={shown("pipeline")}>
        <Field
          id={id("pipeline_version")}
          label="Child version"
          hint="Empty follows the child's current version"
          error={props.err(f("pipeline_version"))}
        >
          {(a) => (
            <input
              {...a}
              name={f("pipeline_version")}
              value={text(node.pipeline?.version)}
              inputMode="numeric"
            />
          )}
        </Field>
      </div>
      {type === "CALCULATOR" && (
        <p class="muted small">
          The calculator, its inputs and what it writes are edited in the JSON view.
        </p>
      )}
      {props.ids.length > CHIP_LIMIT
        ? (
          // A big graph: one chip per other node on every card would grow as the square of it.
          <Field
            id={id("depends_on")}
            label="Depends on"
            hint="Node ids, comma-separated"
            error={depsError}
          >
            {(a) => <input {...a} name={f("depends_on")} value={deps.join(", ")} class="mono" />}
          </Field>
        )
        : (
          <fieldset
            id={id("depends_on")}
            class="field deps"
            aria-describedby={depsError ? id("depends_on-error") : undefined}
          >
            <legend class="label">Depends on</legend>
            {others.length === 0
              ? <span class="muted small">No other nodes yet.</span>
              : (
                <div class="chips">
                  {others.map(([other, j]) => (
                    <label key={j} class="chip">
                      <input
                        type="checkbox"
                        name={f(`dep.${j}`)}
                        value="true"
                        checked={deps.includes(other)}
                        aria-invalid={depsError ? "true" : undefined}
                      />
                      <span class="mono" data-dep-label={j}>{other || `node ${j + 1}`}</span>
                    </label>
                  ))}
                </div>
              )}
            {depsError && (
              <span class="error" id={id("depends_on-error")} role="alert">{depsError}</span>
            )}
          </fieldset>
        )}
      <div class="grid cols-4 output" data-for-types={FOR.output} hidden={shown("output")}>
        <Field id={id("target")} label="Output" error={props.err(f("target"))}>
          {(a) => (
            <select {...a} name={f("target")} data-node-target>
              <Choice
                value=""
                current={text(node.output?.target)}
                empty="caller (the result)"
                options={[["caller", "caller"], ["tempdb", "tempdb (staging)"], [
                  "datasource",
                  "datasource (write back)",
                ]]}
              />
            </select>
          )}
        </Field>
        <div
          data-for-targets="tempdb datasource"
          hidden={forTarget("tempdb datasource", node.output?.table)}
        >
          <Field id={id("table")} label="Table" error={props.err(f("table"))}>
            {(a) => (
              <input
                {...a}
                name={f("table")}
                value={text(node.output?.table)}
                class="mono"
              />
            )}
          </Field>
        </div>
        <div
          data-for-targets="datasource"
          hidden={forTarget("datasource", node.output?.datasource)}
        >
          <Field id={id("datasource")} label="Into datasource" error={props.err(f("datasource"))}>
            {(a) => (
              <input
                {...a}
                name={f("datasource")}
                value={text(node.output?.datasource)}
                list="pf-datasources"
              />
            )}
          </Field>
        </div>
        <div data-for-targets="datasource" hidden={forTarget("datasource", node.output?.mode)}>
          <Field id={id("mode")} label="Write mode" error={props.err(f("mode"))}>
            {(a) => (
              <select {...a} name={f("mode")}>
                <Choice
                  value=""
                  current={text(node.output?.mode)}
                  empty="append (default)"
                  options={[["append", "append"], ["replace", "replace"], ["create", "create"]]}
                />
              </select>
            )}
          </Field>
        </div>
      </div>
      <Field id={id("description")} label="Description" error={props.err(f("description"))}>
        {(a) => <input {...a} name={f("description")} value={text(node.description)} />}
      </Field>
    </fieldset>
  );
}
