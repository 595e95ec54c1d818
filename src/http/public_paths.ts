/**
 * The paths that need no credential, as data, in one place. Public does not mean unscoped: a route
 * on a public path that declares an operation is still checked.
 */
const EXACT = new Set([
  "/",
  "/docs",
  "/skill.md",
  "/robots.txt",
  "/sitemap.xml",
  "/health",
  "/ready",
  "/info",
  "/login",
  "/favicon.ico",
  "/error",
  "/openapi.json",
  // Guarded by its own bearer token (routes/metrics.ts), never by a session or an API key.
  "/metrics",
]);

/** Folders whose whole subtree is public (`/x/**`). */
const SUBTREES = [
  "/site/",
  "/login/",
  "/oauth2/",
  "/vendor/",
  "/css/",
  "/js/",
  "/docs/",
  "/skill/",
];

/** GET-only constant marketing pages (docs/ui.md#the-public-site); `ui/site/` holds them. */
export const MARKETING_PAGES = [
  "/faq",
  "/roadmap",
  "/security",
  "/pricing",
  "/how-it-works",
  "/use-cases",
  "/explore",
  "/published-api",
  "/mcp-tools",
  "/semantic-layer",
  "/demo-data",
  "/federated-query",
];
const MARKETING = new Set(MARKETING_PAGES);
/** Folders of marketing pages, each page one file of `ui/site/<folder>/`. */
export const MARKETING_FOLDERS = ["/compare/", "/for/"];

/** True when a request to this path needs no credential. */
export function isPublicPath(method: string, path: string): boolean {
  if (EXACT.has(path) || SUBTREES.some((p) => path.startsWith(p))) return true;
  const read = method === "GET" || method === "HEAD";
  return read &&
    (MARKETING.has(path) ||
      MARKETING_FOLDERS.some((p) => path.startsWith(p) && path.length > p.length));
}

/** Paths a password-opened session with a pending forced change may still reach. */
export function isPasswordGateExempt(path: string): boolean {
  return path === "/settings/password" || path === "/partials/account/password" ||
    path === "/logout" ||
    path === "/health" || path === "/ready" || path === "/favicon.ico" ||
    ["/css/", "/js/", "/vendor/"].some((p) => path.startsWith(p));
}
