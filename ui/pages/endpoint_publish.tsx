import { CheckField, FormActions, InputField } from "../components/field.tsx";
import { PageHead } from "../components/page_head.tsx";
import { PublishedAt } from "../components/endpoint_parts.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { ParameterView } from "../../src/pipelines/mod.ts";
import { assetUrl } from "../static_files.ts";

/** The publish form as typed, kept across a refusal. */
export interface PublishDraft {
  path_pattern: string;
  timeout_seconds: string;
  description: string;
  enabled: boolean;
}

/** A refusal of the publish, on the field it concerns (`pipeline` for the release's defects). */
export interface PublishError {
  code: string;
  message: string;
  field?: "path_pattern" | "pipeline" | "timeout_seconds" | "description";
}

/**
 * `/pipelines/{id}/publish`: publish a released pipeline as `GET /api/x/<path>`. The path builder
 * shows the grammar, proposes a `/{name}` segment for each parameter of the release, and shows the
 * URL as it is typed; the service's refusals land on the field they concern.
 */
export function PublishPage(props: {
  ctx: ShellContext;
  origin: string;
  pipeline: { id: string; name: string; title: string };
  /** The release a publish would serve (the latest), or null when there is none. */
  release: { version: number; parameters: Record<string, ParameterView> } | null;
  /** Where the pipeline is published already. */
  published: { path_pattern: string; enabled: boolean }[];
  draft: PublishDraft;
  error?: PublishError;
  timeout: { min: number; max: number; default: number };
}) {
  const { pipeline: p, draft, error } = props;
  const on = (f: NonNullable<PublishError["field"]>) => error?.field === f ? error.message : null;
  const params = Object.entries(props.release?.parameters ?? {}).filter(([, d]) => !d.derived);
  return (
    <AppShell title={`Publish ${p.title}`} nav="pipelines" ctx={props.ctx}>
      <script src={assetUrl("/js/endpoints.js")} defer></script>
      <PageHead
        trail={[["/pipelines", "Pipelines"], [`/pipelines/${p.id}`, p.name]]}
        title="Publish as endpoint"
      >
        <p>
          Programs holding a key call it as <code>GET /api/x/&lt;path&gt;</code>{" "}
          and get the rows of a fresh run. Path variables and the query string are the pipeline's
          parameters.
        </p>
      </PageHead>
      {error && !error.field && <p class="banner error" role="alert">{error.message}</p>}
      <form
        method="post"
        action="/partials/endpoints/publish"
        class="card editor-form publish-form"
        data-error-code={error?.code}
      >
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        <input type="hidden" name="pipeline_id" value={p.id} />
        <div class="body">
          <InputField
            id="publish-pipeline"
            label="Pipeline"
            error={on("pipeline")}
            hint={props.release
              ? `Serves its latest release, v${props.release.version} now; a later release changes what the URL runs.`
              : "It has no release: release it before publishing."}
            input={{ class: "mono", value: p.name, readOnly: true }}
          />
          <InputField
            id="publish-path"
            label="Path"
            error={on("path_pattern")}
            hint={
              <>
                Under <code>/api/x</code>. Segments are literals (<code>shop</code>,{" "}
                <code>top-customers</code>) or a parameter in braces (<code>{"{country}"}</code>).
              </>
            }
            input={{
              name: "path_pattern",
              class: "mono",
              value: draft.path_pattern,
              required: true,
              maxLength: 200,
              autocomplete: "off",
              spellcheck: false,
              "data-path-input": true,
            }}
          />
          {params.length > 0 && (
            <div class="path-proposals" role="group" aria-labelledby="publish-proposals-label">
              <span id="publish-proposals-label" class="small">
                Add a parameter as a segment:
              </span>
              {params.map(([name, d]) => (
                <button
                  type="button"
                  key={name}
                  class="chip mono"
                  data-path-append={`/{${name}}`}
                  title={`${d.type}${d.description ? ` — ${d.description}` : ""}`}
                >
                  /{`{${name}}`}
                </button>
              ))}
            </div>
          )}
          <p class="publish-url small">
            <span class="muted">The URL:</span>{" "}
            <output id="publish-url" for="publish-path" class="mono" data-origin={props.origin}>
              GET {props.origin}/api/x{draft.path_pattern}
            </output>
          </p>
          <PathGrammar />
          <div class="grid cols-2">
            <InputField
              id="publish-timeout"
              label="Timeout (seconds)"
              error={on("timeout_seconds")}
              hint={`${props.timeout.min}–${props.timeout.max} s; a longer run goes on, and the call answers 202 with where to read it.`}
              input={{
                name: "timeout_seconds",
                type: "number",
                step: "1",
                value: draft.timeout_seconds,
                placeholder: String(props.timeout.default),
              }}
            />
            <InputField
              id="publish-description"
              label="Description (optional)"
              error={on("description")}
              input={{ name: "description", value: draft.description, maxLength: 2000 }}
            />
          </div>
          <CheckField
            id="publish-enabled"
            name="enabled"
            label="Serve at once (a disabled endpoint answers 404 until enabled)"
            checked={draft.enabled}
          />
          {props.published.length > 0 && <PublishedAt endpoints={props.published} />}
          <FormActions submit="Publish" cancel={`/pipelines/${p.id}`} />
        </div>
      </form>
    </AppShell>
  );
}

/** The path grammar (docs/endpoints.md#paths), as a reader needs it before a refusal teaches it. */
function PathGrammar() {
  return (
    <details class="path-grammar">
      <summary>Path rules</summary>
      <ul class="small">
        <li>
          Starts with <code>/</code>, 1 to 10 segments, at most 200 characters, no trailing{" "}
          <code>/</code>, no wildcards.
        </li>
        <li>
          A literal segment: <code>a–z</code> or <code>0–9</code>, then up to 63 of{" "}
          <code>a–z 0–9 _ . -</code>.
        </li>
        <li>
          A variable segment: <code>{"{name}"}</code>, where <code>name</code>{" "}
          is a parameter of the release; each at most once. It stands for exactly one segment.
        </li>
        <li>
          Paths are unique across the deployment, and two paths that some URL would match both
          cannot coexist: <code>/sales/{"{region}"}</code> and <code>/sales/eu</code> conflict;{" "}
          <code>/sales/eu/daily</code> does not.
        </li>
      </ul>
    </details>
  );
}
