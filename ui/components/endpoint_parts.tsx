import { ConfirmDialog, ConfirmLink } from "./confirm.tsx";

/** A binding that decides for some URL of an endpoint: the node and the key bound there. */
export interface BindingRow {
  path: string;
  key_name: string;
  key_id: string;
}

/**
 * One published endpoint as the pages show it (the record of docs/endpoints.md#publishing, plus its
 * release).
 */
export interface EndpointSummary {
  path_pattern: string;
  pipeline_id: string;
  pipeline_name: string | null;
  /** The latest released version, which is what a call runs; null when none is left. */
  release: number | null;
  enabled: boolean;
  timeout_seconds: number;
  description: string | null;
  /** Deepest first, as the service lists them. */
  bindings: BindingRow[];
}

/** The endpoint's own page, addressed by pattern like the API (`?path=`). */
export const endpointHref = (pattern: string) =>
  `/endpoints/view?path=${encodeURIComponent(pattern)}`;

/** `GET <origin>/api/x<pattern>` with each variable as `<name>`, which curl would not glob. */
export function exampleUrl(origin: string, pattern: string): string {
  return `${origin}/api/x${pattern.replace(/\{([^}]*)\}/g, "<$1>")}`;
}

export function StateBadge(props: { enabled: boolean }) {
  return (
    <span class={`badge ${props.enabled ? "ok" : "warn"}`}>
      {props.enabled ? "enabled" : "disabled"}
    </span>
  );
}

/**
 * Who may call: the bound keys by node, deepest first (the walk's order), or the rule that holds
 * when nothing is bound on the way.
 */
export function Bindings(props: { bindings: BindingRow[] }) {
  if (props.bindings.length === 0) {
    return <span class="muted small">none: user keys of this workspace with execute</span>;
  }
  const byNode = new Map<string, string[]>();
  for (const b of props.bindings) byNode.set(b.path, [...byNode.get(b.path) ?? [], b.key_name]);
  return (
    <ul class="bindings">
      {[...byNode].map(([node, keys]) => (
        <li key={node}>
          <code>{node}</code> <span class="muted">→</span> {keys.join(", ")}
        </li>
      ))}
    </ul>
  );
}

/**
 * Enable or disable: a plain form posting to the state partial, which answers with a redirect to
 * `back`, so it works without a script.
 */
export function StateToggle(
  props: { pattern: string; enabled: boolean; csrf: string; back: string; small?: boolean },
) {
  return (
    <form method="post" action="/partials/endpoints/state" class="inline">
      <input type="hidden" name="_csrf" value={props.csrf} />
      <input type="hidden" name="path" value={props.pattern} />
      <input type="hidden" name="enabled" value={String(!props.enabled)} />
      <input type="hidden" name="back" value={props.back} />
      <button
        type="submit"
        class={props.small ? "small" : undefined}
        aria-label={`${props.enabled ? "Disable" : "Enable"} ${props.pattern}`}
      >
        {props.enabled ? "Disable" : "Enable"}
      </button>
    </form>
  );
}

/** Unpublish asks first: a link to `ask` (the page with the dialog drawn open). */
export function UnpublishLink(props: { pattern: string; ask: string; small?: boolean }) {
  return (
    <ConfirmLink
      href={props.ask}
      class={`btn danger${props.small ? " small" : ""}`}
      label={`Unpublish ${props.pattern}`}
    >
      Unpublish
    </ConfirmLink>
  );
}

/** The question Unpublish asks: what stops working, for whom, and what stays. */
export function UnpublishDialog(
  props: { endpoint: EndpointSummary; origin: string; csrf: string; cancel: string },
) {
  const e = props.endpoint;
  const keys = [...new Set(e.bindings.map((b) => b.key_name))];
  return (
    <ConfirmDialog
      id="confirm-act"
      title={`Unpublish ${e.path_pattern}?`}
      action="/partials/endpoints/unpublish"
      csrf={props.csrf}
      fields={{ path: e.path_pattern }}
      confirm="Unpublish"
      danger
      cancel={props.cancel}
    >
      <p>
        <code>GET {exampleUrl(props.origin, e.path_pattern)}</code>{" "}
        answers 404 at once, for every caller: programs and agents calling it stop getting data.
      </p>
      {keys.length > 0 && (
        <p>
          The bindings of {keys.join(", ")}{" "}
          stay on their keys, and would apply again to a path published under the same nodes.
        </p>
      )}
      <p>
        The pipeline {e.pipeline_name ?? e.pipeline_id}{" "}
        and its runs stay; it can be published again.
      </p>
    </ConfirmDialog>
  );
}

/** Where a pipeline is published, each path linked to its endpoint page. */
export function PublishedAt(props: { endpoints: { path_pattern: string; enabled: boolean }[] }) {
  if (props.endpoints.length === 0) return null;
  return (
    <p class="published-at small">
      <span class="muted">Published at</span>{" "}
      {props.endpoints.map((e, i) => (
        <span key={e.path_pattern}>
          {i > 0 && ", "}
          <a class="mono" href={endpointHref(e.path_pattern)}>{e.path_pattern}</a>
          {!e.enabled && (
            <>
              {" "}
              <span class="muted">(disabled)</span>
            </>
          )}
        </span>
      ))}
    </p>
  );
}
