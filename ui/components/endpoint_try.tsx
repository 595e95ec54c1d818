import { CopyText } from "./copy_text.tsx";
import type { ParameterView } from "../../src/pipelines/mod.ts";
import { KeyCreateForm, type KeyDraft } from "./key_create.tsx";
import { ParameterControl } from "./parameter_form.tsx";
import { assetUrl } from "../static_files.ts";

/** One of the viewer's keys that can reach the endpoint, as the key picker offers it. */
export interface TryKey {
  id: string;
  name: string;
  /** What lets it through: "user key, execute", "endpoint key, bound at /shop". */
  note: string;
}

export interface TryPanelProps {
  origin: string;
  pattern: string;
  /** The served release's asked-for parameters (derived ones aside), by name. */
  parameters: Record<string, ParameterView>;
  keys: TryKey[];
  /** The key-issue form, prefilled for this endpoint; null when the viewer mints no keys. */
  keyForm: {
    csrf: string;
    draft: KeyDraft;
    kinds: string[];
    workspaces: { name: string; display_name: string; role: string }[];
  } | null;
  /** This page, where the issued key's Done returns. */
  back: string;
}

/** The pattern's variable names, in order. */
export function variablesOf(pattern: string): string[] {
  return [...pattern.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map((m) => m[1]);
}

/** The call as first drawn: each path variable its default (else `<name>`), the key as `$KEY`. */
export function initialCurl(
  origin: string,
  pattern: string,
  parameters: Record<string, ParameterView>,
): string {
  const path = pattern.replace(/\{([a-z_][a-z0-9_]*)\}/g, (_, name: string) => {
    const d = parameters[name]?.default;
    return d === undefined || d === null ? `<${name}>` : encodeURIComponent(String(d));
  });
  return `curl -H "SVC-API-Key: $KEY" "${origin}/api/x${path}"`;
}

/**
 * The try-it panel: a form built from the endpoint's parameters (path variables first), a key of
 * the viewer's own, Send, the live answer, and the exact `curl`. The call is made by this page's
 * script straight to `/api/x` with the key in `SVC-API-Key` (a browser session there is 401,
 * docs/endpoints.md#a-browser-at-apix); a key's secret is never drawn from the store, so the viewer
 * pastes it, or creates a key here and its secret, shown once, is used at once.
 */
export function TryPanel(props: TryPanelProps) {
  const vars = variablesOf(props.pattern);
  const asked = Object.entries(props.parameters).filter(([, d]) => !d.derived);
  const ordered = [
    ...vars.flatMap((v) => asked.filter(([n]) => n === v)),
    ...asked.filter(([n]) => !vars.includes(n)),
  ];
  return (
    <section
      class="card section-gap try"
      id="try"
      aria-labelledby="try-title"
      data-try={props.pattern}
      data-origin={props.origin}
    >
      <script src={assetUrl("/js/endpoints.js")} defer></script>
      <header>
        <h2 id="try-title">Try it</h2>
        <span class="muted small">A real call from this browser, with one of your keys</span>
      </header>
      <div class="body">
        <noscript>
          <p class="banner">
            Trying an endpoint needs JavaScript: the call carries your key in a header. The{" "}
            <code>curl</code> below does the same from a shell.
          </p>
        </noscript>
        <form id="try-form" class="try-form" novalidate>
          <fieldset>
            <legend>Parameters</legend>
            {ordered.length === 0 && <p class="muted small">This endpoint takes no parameters.</p>}
            <div class="param-grid">
              {ordered.map(([name, decl]) => {
                const inPath = vars.includes(name);
                const id = `try-${name}`;
                return (
                  <div
                    class="field"
                    key={name}
                    data-param={name}
                    data-in={inPath ? "path" : "query"}
                  >
                    <label for={id}>
                      <span class="mono">{name}</span>
                      {inPath && <span class="req" aria-hidden="true">*</span>}{" "}
                      <span class="badge">{inPath ? "path" : "query"}</span>
                    </label>
                    <ParameterControl
                      name={name}
                      decl={inPath ? { ...decl, required: true } : decl}
                      id={id}
                      prefill={inPath}
                    />
                    <span class="hint" id={`${id}-hint`}>
                      {decl.type}
                      {!inPath && decl.default !== undefined && decl.default !== null
                        ? `, default ${JSON.stringify(decl.default)}`
                        : ""}
                      {decl.description ? ` — ${decl.description}` : ""}
                    </span>
                    <span class="error" id={`${id}-error`} data-error-for={name} />
                  </div>
                );
              })}
            </div>
          </fieldset>
          <fieldset class="try-key">
            <legend>Key</legend>
            <div class="grid cols-2">
              <div class="field">
                <label for="try-key">Call with</label>
                <select id="try-key" aria-describedby="try-key-hint try-key-error">
                  <option value="">Choose a key…</option>
                  {props.keys.map((k) => (
                    <option key={k.id} value={k.id} data-name={k.name}>
                      {k.name} ({k.note})
                    </option>
                  ))}
                  {props.keyForm && <option value="new">Create a key now…</option>}
                </select>
                <span class="hint" id="try-key-hint">
                  {props.keys.length === 0
                    ? "None of your keys can reach this endpoint yet."
                    : "Your live keys pinned to this workspace that can reach this endpoint."}
                </span>
                <span class="error" id="try-key-error" data-error-for="key" />
              </div>
              <div class="field" data-secret-field>
                <label for="try-secret">Its secret</label>
                <input
                  id="try-secret"
                  type="password"
                  class="mono"
                  autocomplete="off"
                  spellcheck={false}
                  placeholder="svck_…"
                  aria-describedby="try-secret-hint try-secret-error"
                />
                <span class="hint" id="try-secret-hint">
                  Shown only when the key was made. It stays in this page and travels only as the
                  call's <code>SVC-API-Key</code> header.
                </span>
                <span class="error" id="try-secret-error" data-error-for="secret" />
              </div>
            </div>
          </fieldset>
        </form>
        {props.keyForm && (
          <div id="key-create-slot" class="key-create-slot try-key-create" data-swap-refusal hidden>
            <KeyCreateForm
              csrf={props.keyForm.csrf}
              draft={props.keyForm.draft}
              kinds={props.keyForm.kinds}
              workspaces={props.keyForm.workspaces}
              back={props.back}
              title="Create a key to call it with"
            />
          </div>
        )}
        {/* After the key's own form, which cannot nest in this one: Send names its form. */}
        <div class="actions try-send">
          <button type="submit" form="try-form" class="primary" id="try-send">Send</button>
          <span class="muted small" id="try-busy" role="status" />
        </div>
        <h3 class="try-heading">The call</h3>
        <p class="muted small" id="try-curl-note">
          <code>$KEY</code> is the secret of the key you choose.
        </p>
        <CopyText
          id="try-curl"
          class="try-curl"
          text={initialCurl(props.origin, props.pattern, props.parameters)}
          label="Copy the curl call"
        />
        <div id="try-response" class="try-response" hidden>
          <h3 class="try-heading">The answer</h3>
          <div class="try-status">
            <span id="try-status" class="badge" />
            <span id="try-timing" class="muted small mono" />
          </div>
          <div id="try-error" />
          <div id="try-table" />
          <details>
            <summary>Response body</summary>
            <pre id="try-body" class="try-body" />
          </details>
        </div>
      </div>
    </section>
  );
}
