import { InputField, SelectField, TextareaField } from "./field.tsx";
import { type Obj, RemoveButton, text } from "./form_parts.tsx";
import type { PipelineFormProps } from "./pipeline_form.tsx";

// The node types (docs/authoring.md#the-pipeline-body), as choices.
const NODE_TYPES: [string, string][] = [
  ["DQL", "DQL · read"],
  ["PIPELINE", "PIPELINE · child pipeline"],
  ["CALCULATOR", "CALCULATOR · derive parameters"],
  ["DML", "DML · write rows"],
  ["DDL", "DDL · change tables"],
];

/** Where a node's query comes from, as the radio choices offer it. */
const QUERY_FROM = [["template", "A template"], ["sql", "Inline SQL"]] as const;

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
  // A field's id, the refusal placed on it and its control's name, all from its key.
  const at = (k: string) => ({ id: id(k), error: props.err(f(k)), name: f(k) });
  const type = String(node.type ?? "DQL");
  // A group of another type's fields stays hidden unless the node carries such a field anyway.
  const carries: Record<keyof typeof FOR, unknown[]> = {
    source: [node.source],
    template: [node.template, node.sql],
    pipeline: [node.pipeline],
    output: [node.output],
  };
  // A group's attributes: the types the script shows it for, and whether it starts hidden.
  const forTypes = (group: keyof typeof FOR) => {
    const shown = FOR[group].split(" ").includes(type) ||
      carries[group].some((v) => v !== undefined);
    return { "data-for-types": FOR[group], hidden: shown ? undefined : true };
  };
  const others = props.ids.map((x, j) => [x, j] as const).filter(([, j]) => j !== i);
  const deps: string[] = Array.isArray(node.depends_on) ? node.depends_on : [];
  const depsError = props.err(f("depends_on"));
  // Template or inline SQL: one of them (the script disables the other, so only one posts).
  const query = node.template !== undefined || node.sql === undefined ? "template" : "sql";
  const target = text(node.output?.target);
  // An output field's attributes, likewise by the output's target.
  const forTargets = (targets: string, value: unknown) => ({
    "data-for-targets": targets,
    hidden: targets.split(" ").includes(target) || value !== undefined ? undefined : true,
  });
  return (
    <fieldset class="node-card" data-node-card={i}>
      <legend>
        <span class="badge node-type">{type}</span>
        <span class="mono" data-node-title={i}>{text(node.id) || `node ${i + 1}`}</span>
        <span class="spacer" />
        <RemoveButton op={`remove_node:${i}`} label={`Remove node ${text(node.id)}`} />
      </legend>
      <div class="grid cols-3">
        <InputField
          {...at("id")}
          label="Id"
          value={text(node.id)}
          input={{
            class: "mono",
            required: true,
            pattern: "[a-z][a-z0-9_]{0,63}",
            "data-node-id": i,
          }}
        />
        <SelectField
          {...at("type")}
          label="Type"
          select={{ "data-node-type": true }}
          value={type}
          options={NODE_TYPES}
        />
        <div {...forTypes("source")}>
          <InputField
            {...at("source")}
            label="Source"
            hint="A datasource, or tempdb for staged tables"
            value={text(node.source)}
            input={{ list: "pf-datasources" }}
          />
        </div>
        <div {...forTypes("pipeline")}>
          <InputField
            {...at("pipeline_id")}
            label="Child pipeline id"
            value={text(node.pipeline?.id)}
            input={{ class: "mono" }}
          />
        </div>
      </div>
      <div {...forTypes("template")}>
        <div class="query-choice" role="radiogroup" aria-label={`${text(node.id)} query from`}>
          <span class="label">Query from</span>
          {QUERY_FROM.map(([value, label]) => (
            <label class="chip" key={value}>
              <input
                type="radio"
                name={f("query")}
                value={value}
                checked={query === value}
                data-query-choice
              />
              {label}
            </label>
          ))}
        </div>
        <div
          class="grid cols-3"
          data-query="template"
          hidden={query !== "template" && !props.err(f("template_id")) &&
            !props.err(f("template_version"))}
        >
          <InputField
            {...at("template_id")}
            label="Template"
            hint="A released SQL template, pinned by version"
            class="span-2"
            value={text(node.template?.id)}
            input={{ list: "pf-templates", class: "mono" }}
          />
          <InputField
            {...at("template_version")}
            label="Version"
            value={text(node.template?.version)}
            input={{ inputMode: "numeric" }}
          />
        </div>
        <div data-query="sql" hidden={query !== "sql" && !props.err(f("sql"))}>
          <TextareaField
            {...at("sql")}
            label="SQL"
            value={text(node.sql)}
            textarea={{ rows: 4, spellcheck: false, "data-editor": "sql" }}
          />
        </div>
      </div>
      <div {...forTypes("pipeline")}>
        <InputField
          {...at("pipeline_version")}
          label="Child version"
          hint="Empty follows the child's current version"
          value={text(node.pipeline?.version)}
          input={{ inputMode: "numeric" }}
        />
      </div>
      {type === "CALCULATOR" && (
        <p class="muted small">
          The calculator, its inputs and what it writes are edited in the JSON view.
        </p>
      )}
      {props.ids.length > CHIP_LIMIT
        ? (
          // A big graph: one chip per other node on every card would grow as the square of it.
          <InputField
            {...at("depends_on")}
            label="Depends on"
            hint="Node ids, comma-separated"
            value={deps.join(", ")}
            input={{ class: "mono" }}
          />
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
      <div class="grid cols-4 output" {...forTypes("output")}>
        <SelectField
          {...at("target")}
          label="Output"
          select={{ "data-node-target": true }}
          value={target}
          empty="caller (the result)"
          options={[["caller", "caller"], ["tempdb", "tempdb (staging)"], [
            "datasource",
            "datasource (write back)",
          ]]}
        />
        <div {...forTargets("tempdb datasource", node.output?.table)}>
          <InputField
            {...at("table")}
            label="Table"
            value={text(node.output?.table)}
            input={{ class: "mono" }}
          />
        </div>
        <div {...forTargets("datasource", node.output?.datasource)}>
          <InputField
            {...at("datasource")}
            label="Into datasource"
            value={text(node.output?.datasource)}
            input={{ list: "pf-datasources" }}
          />
        </div>
        <div {...forTargets("datasource", node.output?.mode)}>
          <SelectField
            {...at("mode")}
            label="Write mode"
            value={text(node.output?.mode)}
            empty="append (default)"
            options={[["append", "append"], ["replace", "replace"], ["create", "create"]]}
          />
        </div>
      </div>
      <InputField
        {...at("description")}
        label="Description"
        value={text(node.description)}
      />
    </fieldset>
  );
}
