import { BaseLayout } from "../layouts/base.tsx";

const FEATURES = [
  {
    href: "/federated-query",
    title: "Many sources, one result",
    text: "PostgreSQL, MySQL, SQLite, DuckDB and lakes read in one pipeline, joined in staging.",
  },
  {
    href: "/how-it-works",
    title: "Versioned SQL",
    text: "Templates and pipelines with drafts, content hashes, release checks and a diff.",
  },
  {
    href: "/explore",
    title: "Live runs",
    text: "Every node's progress streamed as it runs; results paged, charted and downloaded.",
  },
  {
    href: "/published-api",
    title: "Published API",
    text: "A released read-only pipeline becomes GET /api/x/… with keys, limits and OpenAPI.",
  },
  {
    href: "/mcp-tools",
    title: "Tools for agents",
    text: "41 MCP tools with the roles of the key's owner and results that say when they are cut.",
  },
  {
    href: "/security",
    title: "Confined by design",
    text: "Author SQL cannot reach the server's files; secrets are write-only; every act audited.",
  },
];

/** `/`: what this is and where to go next. */
export function LandingPage(props: { version: string }) {
  return (
    <BaseLayout title="Welcome">
      <section class="hero">
        <h1>SQL pipelines your whole team can run</h1>
        <p>
          Register datasources, author versioned SQL templates and pipelines, run them with live
          progress, and publish released pipelines as read-only APIs — from one executable you run
          next to your data.
        </p>
        <div class="hero-actions">
          <a href="/login" class="btn primary">Sign in</a>
          <a href="/how-it-works" class="btn">How it works</a>
        </div>
      </section>
      <section class="feature-grid">
        {FEATURES.map((f) => (
          <a href={f.href} class="card feature" key={f.href}>
            <h2>{f.title}</h2>
            <p>{f.text}</p>
          </a>
        ))}
      </section>
      <section class="landing-links">
        <h2>For programs</h2>
        <ul>
          <li>
            <a href="/openapi.json">OpenAPI document</a> of the REST API under <code>/api/v1</code>
          </li>
          <li>
            <a href="/docs">Documentation</a> and the <a href="/docs/errors">error codes</a>
          </li>
          <li>
            <a href="/health">Health</a> · <a href="/ready">Readiness</a> ·{" "}
            <a href="/info">Build</a>
          </li>
        </ul>
      </section>
      <p class="muted">Version {props.version}</p>
    </BaseLayout>
  );
}
