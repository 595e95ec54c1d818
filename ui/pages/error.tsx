import { BaseLayout } from "../layouts/base.tsx";

/** A refused or failed page request, told the way the error envelope tells a person. */
export function ErrorPage(
  props: { status: number; code: string; userMessage: string; correlationId: string },
) {
  return (
    <BaseLayout title={props.userMessage}>
      <section class="hero error-page">
        <p class="muted mono">{props.status} · {props.code}</p>
        <h1>{props.userMessage}</h1>
        <p>
          <a href="/dashboard">Back to the dashboard</a>
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
    </BaseLayout>
  );
}
