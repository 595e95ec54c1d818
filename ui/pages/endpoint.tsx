import { PageHead } from "../components/page_head.tsx";
import {
  Bindings,
  endpointHref,
  type EndpointSummary,
  exampleUrl,
  StateBadge,
  StateToggle,
  UnpublishDialog,
  UnpublishLink,
} from "../components/endpoint_parts.tsx";
import { TryPanel, type TryPanelProps } from "../components/endpoint_try.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/**
 * `/endpoints/view?path=`: one published endpoint — what it runs, who may call it, its acts —
 * and the try-it panel that calls it for real.
 */
export function EndpointPage(props: {
  ctx: ShellContext;
  origin: string;
  endpoint: EndpointSummary & { created_by_name: string; created_at: string };
  tryPanel: Omit<TryPanelProps, "origin" | "pattern" | "back">;
  flash?: string;
  /** `?confirm=unpublish`: the Unpublish question drawn open. */
  confirm: boolean;
}) {
  const e = props.endpoint;
  const here = endpointHref(e.path_pattern);
  return (
    <AppShell title={`Endpoint ${e.path_pattern}`} nav="endpoints" ctx={props.ctx}>
      <PageHead
        trail={[["/endpoints", "Endpoints"]]}
        title={
          <>
            <span class="mono">{e.path_pattern}</span> <StateBadge enabled={e.enabled} />
          </>
        }
        actions={
          <>
            <StateToggle
              pattern={e.path_pattern}
              enabled={e.enabled}
              csrf={props.ctx.csrf}
              back={here}
            />
            <UnpublishLink pattern={e.path_pattern} ask={`${here}&confirm=unpublish`} />
          </>
        }
      >
        {e.description && <p>{e.description}</p>}
      </PageHead>
      {props.flash && <p class="banner ok" role="status">{props.flash}</p>}
      {!e.enabled && (
        <p class="banner warn">
          Disabled: every call answers 404, exactly as for a path never published. Enable it to
          serve again.
        </p>
      )}
      <section class="card">
        <dl class="facts endpoint-facts">
          <dt>URL</dt>
          <dd class="mono small">GET {exampleUrl(props.origin, e.path_pattern)}</dd>
          <dt>Pipeline</dt>
          <dd>
            <a href={`/pipelines/${encodeURIComponent(e.pipeline_id)}`}>
              {e.pipeline_name ?? e.pipeline_id}
            </a>{" "}
            <span class="muted small">
              {e.release === null
                ? "has no release left: calls answer 503"
                : `serves release v${e.release}, its latest`}
            </span>
          </dd>
          <dt>Timeout</dt>
          <dd>
            {e.timeout_seconds} s{" "}
            <span class="muted small">
              (a longer run goes on; the call answers 202 with where to read it)
            </span>
          </dd>
          <dt>Who may call</dt>
          <dd>
            <Bindings bindings={e.bindings} />{" "}
            <a class="small" href="/endpoints#bindings">Bind a key</a>
          </dd>
          <dt>Published</dt>
          <dd>
            {e.created_at.slice(0, 10)} by {e.created_by_name}
          </dd>
        </dl>
      </section>
      <TryPanel
        {...props.tryPanel}
        origin={props.origin}
        pattern={e.path_pattern}
        back={here}
      />
      {props.confirm && (
        <UnpublishDialog
          endpoint={e}
          origin={props.origin}
          csrf={props.ctx.csrf}
          cancel={here}
        />
      )}
    </AppShell>
  );
}
