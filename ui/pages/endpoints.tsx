import { Fragment } from "preact";
import { Head } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { Pager } from "../components/paging.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** One published endpoint as the page lists it. */
export interface EndpointRow {
  path_pattern: string;
  pipeline_id: string;
  pipeline_name: string | null;
  /** The latest released version, which is what a call runs; null when none is left. */
  release: number | null;
  enabled: boolean;
  timeout_seconds: number;
  description: string | null;
  /** Distinct keys bound to this endpoint's node or an ancestor of it. */
  keys_bound: number;
}

/**
 * The call a program makes, each variable as `<name>` for the reader to fill in: left as
 * `{name}`, curl would read the braces as its own URL pattern and call a literal path.
 */
export function exampleCall(origin: string, pattern: string): string {
  return `curl -H "SVC-API-Key: $KEY" "${origin}/api/x${pattern.replace(/\{([^}]*)\}/g, "<$1>")}"`;
}

const publishCall = (origin: string) =>
  `curl -X POST "${origin}/api/v1/endpoints" -H "SVC-API-Key: $KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"path_pattern": "/shop/{country}", "pipeline_id": "<released pipeline id>"}'`;

/** `/endpoints`: the workspace's released pipelines published as `GET /api/x/<path>`. */
export function EndpointsPage(props: {
  ctx: ShellContext;
  origin: string;
  endpoints: EndpointRow[];
  offset: number;
  limit: number;
  total: number;
}) {
  return (
    <AppShell title="Endpoints" nav="endpoints" ctx={props.ctx}>
      <PageHead
        title="Endpoints"
        actions={<a class="btn" href="/docs/endpoints">Endpoint docs</a>}
      >
        <p>
          Released, read-only pipelines this workspace serves as{" "}
          <code>GET /api/x/&lt;path&gt;</code>; path variables and the query string are the
          pipeline's parameters. Called with a key, <code>GET /api/x/openapi.json</code>{" "}
          describes every endpoint that key may reach.
        </p>
      </PageHead>
      <section class="card">
        {props.endpoints.length === 0
          ? (
            <div class="empty">
              <strong>No endpoints published yet</strong>
              An author publishes a released pipeline whose every node only reads:
              <pre class="publish-call"><code>{publishCall(props.origin)}</code></pre>
            </div>
          )
          : (
            <table class="endpoints">
              <Head
                cols={["Path", "Pipeline", "State", { label: "Timeout", num: true }, {
                  label: "Keys bound",
                  num: true,
                }]}
              />
              <tbody>
                {props.endpoints.map((e, i) => (
                  <Fragment key={e.path_pattern}>
                    <tr class="has-call">
                      <td>
                        <span class="title mono nowrap">{e.path_pattern}</span>
                        {e.description && <div class="muted small">{e.description}</div>}
                      </td>
                      <td>
                        <a href={`/pipelines/${encodeURIComponent(e.pipeline_id)}`}>
                          {e.pipeline_name ?? e.pipeline_id}
                        </a>
                        <div class="muted small">
                          {e.release === null ? "no release" : `serves release v${e.release}`}
                        </div>
                      </td>
                      <td>
                        <span class={`badge ${e.enabled ? "ok" : "warn"}`}>
                          {e.enabled ? "enabled" : "disabled"}
                        </span>
                      </td>
                      <td class="num">{e.timeout_seconds} s</td>
                      <td class="num">{e.keys_bound}</td>
                    </tr>
                    <tr class="call-row">
                      <td colspan={5}>
                        <div class="call">
                          <code id={`call-${i}`}>{exampleCall(props.origin, e.path_pattern)}</code>
                          <button
                            type="button"
                            class="ghost small"
                            data-copy={`call-${i}`}
                            aria-label={`Copy the call to ${e.path_pattern}`}
                          >
                            Copy
                          </button>
                        </div>
                      </td>
                    </tr>
                  </Fragment>
                ))}
              </tbody>
            </table>
          )}
      </section>
      <Pager
        base="/endpoints"
        query={{}}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </AppShell>
  );
}
