import type { ComponentChildren } from "preact";
import { Icon } from "../components/icons.tsx";
import { assetUrl, EDITOR_IMPORT_MAP, EDITOR_PRELOAD } from "../static_files.ts";

export type Theme = "light" | "dark" | "system";

/**
 * The document every page shares: the theme as `data-theme` (CSS turns it into a colour scheme),
 * the stylesheets and htmx, served from this service (never a CDN) at versioned URLs. A page with
 * a code editor names the module that starts it as `editor`: only those pages get the import map
 * CodeMirror resolves through and the editor's modules.
 */
export function Document(
  props: { title: string; theme?: Theme; editor?: string; children: ComponentChildren },
) {
  return (
    <html lang="en" data-theme={props.theme ?? "system"}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Pipeline Service`}</title>
        <link rel="stylesheet" href={assetUrl("/css/app.css")} />
        <link rel="stylesheet" href={assetUrl("/css/forms.css")} />
        {/* Without the script the folded navigation could not open: it stays drawn instead. */}
        <noscript>
          <link rel="stylesheet" href={assetUrl("/css/noscript.css")} />
        </noscript>
        <link rel="icon" href={assetUrl("/favicon.ico")} />
        {/* htmx would otherwise inject a <style>, which the Content-Security-Policy refuses. */}
        <meta name="htmx-config" content='{"includeIndicatorStyles":false}' />
        {props.editor && (
          <>
            {/* The editors' shadow roots link it themselves (ui/static/js/editor.js). */}
            <meta name="editor-css" content={assetUrl("/css/editor.css")} />
            <script type="importmap" dangerouslySetInnerHTML={{ __html: EDITOR_IMPORT_MAP }} />
            {EDITOR_PRELOAD.map((href) => <link rel="modulepreload" href={href} key={href} />)}
            <script type="module" src={assetUrl(props.editor)}></script>
          </>
        )}
        <script src={assetUrl("/vendor/htmx.min.js")} defer></script>
        <script src={assetUrl("/js/app.js")} defer></script>
      </head>
      {props.children}
    </html>
  );
}

/** The menu button of a narrow screen, opening the navigation `controls` names (app.js). */
export function NavToggle(props: { controls: string }) {
  return (
    <button
      type="button"
      class="nav-toggle ghost"
      aria-expanded="false"
      aria-controls={props.controls}
    >
      <Icon name="menu" />
      <span class="sr-only">Menu</span>
    </button>
  );
}

export function Brand() {
  return (
    <a href="/" class="brand">
      <span class="brand-mark">
        <Icon name="logo" />
      </span>
      <span class="brand-name">Pipeline Service</span>
    </a>
  );
}

const SITE_NAV = [
  ["/how-it-works", "How it works"],
  ["/published-api", "Published API"],
  ["/mcp-tools", "Agents"],
  ["/docs", "Docs"],
  ["/pricing", "Pricing"],
];
const FOOTER_NAV = [
  ["/use-cases", "Use cases"],
  ["/explore", "Explore the demo"],
  ["/federated-query", "Federated queries"],
  ["/semantic-layer", "Semantic layer"],
  ["/security", "Security"],
  ["/roadmap", "Roadmap"],
  ["/faq", "FAQ"],
  ["/docs/errors", "Error codes"],
  ["/openapi.json", "OpenAPI"],
];

/** A person's initials for their avatar: "Dana Smith" and "dana.smith@x" are both "DS". */
export function initials(name: string): string {
  const parts = name.trim().split(/[\s@._-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}

/** A signed-in person on a public page: their name leads back to the app, in their theme. */
export interface Visitor {
  name: string;
  theme: Theme;
}

/**
 * Pages outside the application: the landing page, the site, docs, error codes, not found. Below
 * 860 px the site's navigation folds behind the menu button, as the app's does (app.js opens it;
 * without the script noscript.css keeps it drawn). A signed-in `visitor` sees their name, a link
 * back to the app, where anyone else sees "Sign in".
 */
export function BaseLayout(
  props: { title: string; visitor?: Visitor; children: ComponentChildren },
) {
  const { visitor } = props;
  return (
    <Document title={props.title} theme={visitor?.theme}>
      <body>
        <header class="public-top">
          <NavToggle controls="site-nav" />
          <Brand />
          <nav id="site-nav" class="public-nav" aria-label="Site">
            {SITE_NAV.map(([href, label]) => <a href={href} key={href}>{label}</a>)}
          </nav>
          {visitor
            ? (
              <a href="/dashboard" class="user-chip public-account">
                <span class="avatar" aria-hidden="true">{initials(visitor.name)}</span>
                <span class="who">
                  <span class="name">{visitor.name}</span>
                  <span class="muted small">Open the app</span>
                </span>
              </a>
            )
            : <a href="/login" class="btn">Sign in</a>}
        </header>
        <main class="public">{props.children}</main>
        <footer class="public-foot">
          <nav aria-label="More">
            {FOOTER_NAV.map(([href, label]) => <a href={href} key={href}>{label}</a>)}
          </nav>
        </footer>
      </body>
    </Document>
  );
}

/** A single card in the middle of the page: sign-in and the password change. */
export function CenteredLayout(props: { title: string; children: ComponentChildren }) {
  return (
    <Document title={props.title}>
      <body>
        <main class="centered">
          <section class="card auth-card">
            <Brand />
            {props.children}
          </section>
        </main>
      </body>
    </Document>
  );
}
