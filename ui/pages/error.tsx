import type { ComponentChildren } from "preact";
import { BaseLayout } from "../layouts/base.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/**
 * A page a signed-in person cannot have keeps their frame (navigation, workspace, account menu);
 * anyone else gets the public one, with "Sign in".
 */
function Frame(props: { title: string; ctx?: ShellContext; children: ComponentChildren }) {
  return props.ctx
    ? <AppShell title={props.title} nav={null} ctx={props.ctx}>{props.children}</AppShell>
    : <BaseLayout title={props.title}>{props.children}</BaseLayout>;
}

/** A refused or failed page request, told the way the error envelope tells a person. */
export function ErrorPage(
  props: {
    status: number;
    code: string;
    userMessage: string;
    correlationId: string;
    ctx?: ShellContext;
  },
) {
  return (
    <Frame title={props.userMessage} ctx={props.ctx}>
      <section class="hero error-page">
        <p class="muted mono">{props.status} · {props.code}</p>
        <h1>{props.userMessage}</h1>
        <p>
          {/* Someone signed out would only be sent on to sign in from the dashboard. */}
          <a href={props.ctx ? "/dashboard" : "/"}>
            {props.ctx ? "Back to the dashboard" : "Back to the start"}
          </a>
          {props.status === 401 && (
            <>
              {" · "}
              <a href="/login">Sign in</a>
            </>
          )}
        </p>
        <p class="muted small">
          Reference <span class="mono">{props.correlationId}</span>
        </p>
      </section>
    </Frame>
  );
}
