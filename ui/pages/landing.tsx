import { BaseLayout } from "../layouts/base.tsx";

/** `/`: what this is and where to go next. */
export function LandingPage(props: { version: string }) {
  return (
    <BaseLayout title="Welcome">
      <section class="hero">
        <h1>Pipeline Service</h1>
        <p>
          Register datasources, author versioned SQL templates and pipelines, run them with live
          progress, and publish released pipelines as read-only APIs.
        </p>
      </section>
      <section>
        <h2>For programs</h2>
        <ul>
          <li>
            <a href="/openapi.json">OpenAPI document</a> of the REST API under <code>/api/v1</code>
          </li>
          <li>
            <a href="/docs/errors">Error codes</a> and what they mean
          </li>
          <li>
            <a href="/health">Health</a> · <a href="/ready">Readiness</a> ·{" "}
            <a href="/info">Build</a>
          </li>
        </ul>
      </section>
      <footer class="muted">Version {props.version}</footer>
    </BaseLayout>
  );
}
