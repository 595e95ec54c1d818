import { InputField, SelectField } from "./field.tsx";
import { NodeCard } from "./pipeline_node_card.tsx";
import { type Obj, RemoveButton, text } from "./form_parts.tsx";

export interface PipelineFormProps {
  /** The spec the fields show; the JSON editor's text when it last parsed. */
  spec: Obj;
  /** `spec` as the canonical text the post compares against (`spec_base`). */
  base: string;
  /** The refusal placed on one form field (`p.0.default`, `n.1.sql`, …). */
  error?: { field: string; message: string };
  datasources: string[];
  templates: string[];
  /** The parameter types (docs/authoring.md#parameters), as the domain lists them. */
  parameterTypes: readonly string[];
  /** In a redraw for the script: the spec as pretty JSON, for the JSON editor to take. */
  specJson?: string;
}

export function Parameters(props: PipelineFormProps & { err: (f: string) => string | undefined }) {
  const entries = Object.entries((props.spec.parameters ?? {}) as Obj);
  return (
    <section class="form-section" aria-labelledby="pf-params">
      <header>
        <div>
          <h2 id="pf-params">Parameters</h2>
          <p class="muted small">What a run asks for. Templates bind them as :name.</p>
        </div>
        <button type="submit" name="op" value="add_param" formnovalidate data-op>
          Add parameter
        </button>
      </header>
      {entries.length === 0
        ? <p class="empty small">No parameters: every run is the same.</p>
        : (
          <table class="param-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Required</th>
                <th scope="col">Default</th>
                <th scope="col">Description</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map(([name, d], i) => {
                const extra = ["enum", "min", "max", "max_length"].filter((k) =>
                  d?.[k] !== undefined
                );
                // A cell's field under its column head: id, name and refusal from its key.
                const at = (k: string) => ({
                  id: `p-${i}-${k}`,
                  name: `p.${i}.${k}`,
                  error: props.err(`p.${i}.${k}`),
                  labelHidden: true,
                });
                return (
                  <tr key={i}>
                    <td>
                      <InputField
                        {...at("name")}
                        label={`Parameter ${i + 1} name`}
                        hint={extra.length ? `also ${extra.join(", ")} (JSON)` : undefined}
                        value={name}
                        input={{ class: "mono", pattern: "[a-z_][a-z0-9_]{0,63}", required: true }}
                      />
                    </td>
                    <td>
                      <SelectField
                        {...at("type")}
                        label={`${name} type`}
                        value={d?.type ?? "string"}
                        options={props.parameterTypes.map((t) => [t, t])}
                      />
                    </td>
                    <td class="center">
                      <label class="sr-only" for={`p-${i}-required`}>{name} required</label>
                      <input
                        type="checkbox"
                        id={`p-${i}-required`}
                        name={`p.${i}.required`}
                        value="true"
                        checked={d?.required === true}
                      />
                    </td>
                    <td>
                      <InputField
                        {...at("default")}
                        label={`${name} default`}
                        value={text(d?.default)}
                        input={{ placeholder: "none" }}
                      />
                    </td>
                    <td>
                      <InputField
                        {...at("description")}
                        label={`${name} description`}
                        value={text(d?.description)}
                      />
                    </td>
                    <td class="row-actions">
                      <RemoveButton op={`remove_param:${i}`} label={`Remove parameter ${name}`} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      <input type="hidden" name="p_count" value={String(entries.length)} />
    </section>
  );
}

/**
 * The pipeline editor's form view: parameters as a table, one card per node, the settings.
 * Posted with the JSON editor beside it; `src/http/ui/pipeline_form.ts` reads it back.
 */
export function PipelineForm(props: PipelineFormProps) {
  const err = (field: string) => props.error?.field === field ? props.error.message : undefined;
  const nodes: Obj[] = Array.isArray(props.spec.nodes) ? props.spec.nodes : [];
  const ids = nodes.map((n) => text(n?.id));
  const settings: Obj = props.spec.settings ?? {};
  const checks = Array.isArray(props.spec.checks) ? props.spec.checks.length : 0;
  const setting = (k: string) => ({
    id: `s-${k}`,
    name: `s.${k}`,
    error: err(`s.${k}`),
    value: text(settings[k]),
  });
  return (
    <div
      id="pipeline-form"
      class="pipeline-form"
      data-spec-json={props.specJson}
    >
      <input type="hidden" name="form" value="1" />
      <input type="hidden" name="spec_base" value={props.base} />
      <datalist id="pf-datasources">
        {["tempdb", ...props.datasources].map((d) => <option key={d} value={d} />)}
      </datalist>
      <datalist id="pf-templates">
        {props.templates.map((t) => <option key={t} value={t} />)}
      </datalist>
      <Parameters {...props} err={err} />
      <section class="form-section" aria-labelledby="pf-nodes">
        <header>
          <div>
            <h2 id="pf-nodes">Nodes</h2>
            <p class="muted small">
              Each reads, stages or writes; the one whose output is the caller delivers the result.
            </p>
          </div>
          <button type="submit" name="op" value="add_node" formnovalidate data-op>Add node</button>
        </header>
        <div class="node-cards">
          {nodes.map((node, i) => (
            <NodeCard key={i} {...props} node={node ?? {}} i={i} ids={ids} err={err} />
          ))}
        </div>
        <input type="hidden" name="n_count" value={String(nodes.length)} />
      </section>
      <section class="form-section" aria-labelledby="pf-settings">
        <header>
          <div>
            <h2 id="pf-settings">Settings</h2>
            <p class="muted small">
              {checks
                ? `${checks} release check${checks === 1 ? "" : "s"}, edited in the JSON view.`
                : "Release checks are written in the JSON view."}
            </p>
          </div>
        </header>
        <div class="grid cols-3">
          <SelectField
            {...setting("staging_engine")}
            label="Staging engine"
            empty="default (duckdb)"
            options={[["duckdb", "duckdb"], ["sqlite", "sqlite"]]}
          />
          <InputField
            {...setting("max_parallel_nodes")}
            label="Nodes at once"
            hint="1–16, default 4"
            input={{ inputMode: "numeric", placeholder: "4" }}
          />
        </div>
      </section>
    </div>
  );
}
