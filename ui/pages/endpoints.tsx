import { Card } from "../components/card.tsx";
import { draftFields, InputField, SelectField } from "../components/field.tsx";
import { Head, ScrollTable } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { Pager } from "../components/paging.tsx";
import {
  Bindings,
  endpointHref,
  type EndpointSummary,
  StateBadge,
  StateToggle,
  UnpublishDialog,
  UnpublishLink,
} from "../components/endpoint_parts.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** One of the viewer's endpoint-kind keys pinned to this workspace, with the nodes it is bound to. */
export interface OwnEndpointKey {
  id: string;
  name: string;
  bindings: string[];
}

/** The bind form as typed, and a refusal placed on the field it concerns. */
export interface BindDraft {
  key_name: string;
  path: string;
}
export interface BindError {
  code: string;
  message: string;
  field?: keyof BindDraft;
}

/**
 * `/endpoints`: the workspace's released pipelines published as `GET /api/x/<path>`, each with
 * what it serves, who may call it and its acts; then the viewer's own endpoint keys, bound and
 * unbound here.
 */
export function EndpointsPage(props: {
  ctx: ShellContext;
  origin: string;
  endpoints: EndpointSummary[];
  offset: number;
  limit: number;
  total: number;
  keys: OwnEndpointKey[];
  /** Nodes worth proposing to the bind form: every pattern and its prefixes. */
  nodes: string[];
  bind: { draft: BindDraft; error?: BindError };
  flash?: string;
  /** The endpoint whose Unpublish is being confirmed (`?unpublish=`), drawn as its dialog. */
  confirm?: EndpointSummary;
}) {
  const { ctx } = props;
  const back = `/endpoints${props.offset ? `?offset=${props.offset}` : ""}`;
  return (
    <AppShell title="Endpoints" nav="endpoints" ctx={ctx}>
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
      {props.flash && <p class="banner ok" role="status">{props.flash}</p>}
      <section class="card">
        {props.endpoints.length === 0
          ? (
            <div class="empty endpoints-empty">
              <strong>No endpoints published yet</strong>
              Open a released pipeline whose every node only reads and choose{" "}
              <a href="/pipelines">Publish as endpoint</a>.
            </div>
          )
          : (
            <ScrollTable
              class="endpoints"
              cols={[
                "Path",
                "Pipeline",
                "State",
                { label: "Timeout", num: true },
                "Who may call",
                "Actions",
              ]}
            >
              {props.endpoints.map((e) => (
                <tr key={e.path_pattern}>
                  <td>
                    <a class="title mono nowrap" href={endpointHref(e.path_pattern)}>
                      {e.path_pattern}
                    </a>
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
                    <StateBadge enabled={e.enabled} />
                  </td>
                  <td class="num nowrap">{e.timeout_seconds} s</td>
                  <td>
                    <Bindings bindings={e.bindings} />
                  </td>
                  <td class="row-actions">
                    <div class="actions">
                      <a
                        class="btn small"
                        href={`${endpointHref(e.path_pattern)}#try`}
                        aria-label={`Try it: ${e.path_pattern}`}
                      >
                        Try it
                      </a>
                      <StateToggle
                        pattern={e.path_pattern}
                        enabled={e.enabled}
                        csrf={ctx.csrf}
                        back={back}
                        small
                      />
                      <UnpublishLink
                        pattern={e.path_pattern}
                        ask={`/endpoints?unpublish=${encodeURIComponent(e.path_pattern)}`}
                        small
                      />
                    </div>
                  </td>
                </tr>
              ))}
            </ScrollTable>
          )}
      </section>
      <Pager
        base="/endpoints"
        query={{}}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
      <KeyBindings
        csrf={ctx.csrf}
        keys={props.keys}
        nodes={props.nodes}
        draft={props.bind.draft}
        error={props.bind.error}
      />
      {props.confirm && (
        <UnpublishDialog
          endpoint={props.confirm}
          origin={props.origin}
          csrf={ctx.csrf}
          cancel={back}
        />
      )}
    </AppShell>
  );
}

/**
 * The viewer's endpoint keys and their bindings (docs/endpoints.md#who-may-call): a binding names a
 * node of the endpoint tree, and the deepest bound node on a request's way decides who may call.
 */
function KeyBindings(props: {
  csrf: string;
  keys: OwnEndpointKey[];
  nodes: string[];
  draft: BindDraft;
  error?: BindError;
}) {
  const { error } = props;
  const { bind } = draftFields("bind", props.draft, error);
  return (
    <Card
      class="section-gap"
      id="bindings"
      data-error-code={error?.code}
      title="Your endpoint keys"
      side={<a class="small" href="/settings/api-keys">Manage keys</a>}
    >
      <div class="body">
        <p class="muted small">
          Bind one of your endpoint keys to a node (<code>/</code>, a folder such as{" "}
          <code>/shop</code>, or a pattern): from then on only keys bound there may call the URLs
          under it, user keys included. With no binding on the way, user keys of this workspace
          holding execute may call.
        </p>
        {error && !error.field && <p class="banner error" role="alert">{error.message}</p>}
        {props.keys.length === 0
          ? (
            <p class="empty">
              You have no endpoint keys in this workspace.{" "}
              <a href="/settings/api-keys">Create one</a> (kind “Endpoint”) to bind it here.
            </p>
          )
          : (
            <>
              <table class="key-bindings">
                <Head cols={["Key", "Bound to"]} />
                <tbody>
                  {props.keys.map((k) => (
                    <tr key={k.id}>
                      <td>
                        <span class="title">{k.name}</span>
                        <div class="muted small mono">{k.id}</div>
                      </td>
                      <td>
                        {k.bindings.length === 0
                          ? <span class="muted small">nothing yet: it can call no endpoint</span>
                          : (
                            <ul class="bound-nodes">
                              {k.bindings.map((node) => (
                                <li key={node}>
                                  <code>{node}</code>
                                  <form
                                    method="post"
                                    action="/partials/endpoints/bindings/remove"
                                    class="inline"
                                  >
                                    <input type="hidden" name="_csrf" value={props.csrf} />
                                    <input type="hidden" name="path" value={node} />
                                    <input type="hidden" name="key_name" value={k.name} />
                                    <button
                                      type="submit"
                                      class="ghost small"
                                      aria-label={`Unbind ${k.name} from ${node}`}
                                    >
                                      Unbind
                                    </button>
                                  </form>
                                </li>
                              ))}
                            </ul>
                          )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <form method="post" action="/partials/endpoints/bindings" class="bind-form">
                <input type="hidden" name="_csrf" value={props.csrf} />
                <SelectField
                  {...bind("key_name", "key")}
                  label="Key"
                  options={props.keys.map((k) => [k.name, k.name])}
                />
                <InputField
                  {...bind("path")}
                  label="Node"
                  hint="/, a folder or a published pattern"
                  input={{
                    class: "mono",
                    required: true,
                    maxLength: 200,
                    list: "bind-nodes",
                    placeholder: "/shop",
                    autocomplete: "off",
                  }}
                />
                <datalist id="bind-nodes">
                  {props.nodes.map((n) => <option key={n} value={n} />)}
                </datalist>
                <button type="submit" class="primary">Bind</button>
              </form>
            </>
          )}
      </div>
    </Card>
  );
}
