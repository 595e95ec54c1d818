/**
 * The public site around the application: the marketing pages (`ui/site/*.md`), the product
 * documentation as HTML (`/docs/{id}`) and as Markdown for agents (`/skill/{id}`), `robots.txt` and
 * `sitemap.xml`. Everything here is public and the same for every visitor, so each page is rendered
 * once, on its first request (rendering them all at start-up cost more than the rest of the start),
 * except the docs, which are read per request from the one source the tool endpoint also serves.
 */
import { z } from "zod";
import { getDoc, listDocs } from "../../docs/mod.ts";
import { assets } from "../../lib/assets.ts";
import { ArticlePage } from "../../../ui/pages/article.tsx";
import type { Visitor } from "../../../ui/layouts/base.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Services } from "../../services.ts";
import { MARKETING_FOLDERS, MARKETING_PAGES } from "../public_paths.ts";
import type { Router } from "../routing.ts";
import type { AppContext } from "../context.ts";
import { pageRoute, publicVisitor } from "../ui/shell.ts";

type Deps = Pick<Services, "platform" | "identity">;

// getDoc judges the id itself, so any malformed id is the same 404 as an unknown one.
// Every route here is for browsers, crawlers and agents reading prose: none belongs in the API
// document, so all are declared `html` (the kind that stays out of it).
const DOC_ID = z.object({ id: z.string().max(200) });

/** Markdown to HTML; the renderer is loaded with the first page that needs it, not at start-up. */
async function markdownToHtml(markdown: string): Promise<string> {
  return (await import("../../../ui/markdown.ts")).markdownToHtml(markdown);
}

interface SitePage {
  path: string;
  title: string;
  markdown: string;
}

/** `/faq` is `ui/site/faq.md`; `/compare/x` is `ui/site/compare/x.md`. */
function sitePages(): SitePage[] {
  const paths = [...MARKETING_PAGES];
  for (const folder of MARKETING_FOLDERS) {
    for (const name of assets.filesSync(`ui/site${folder}`)) {
      if (name.endsWith(".md")) paths.push(folder + name.slice(0, -3));
    }
  }
  return paths.sort().map((path) => {
    const markdown = assets.readTextSync(`ui/site${path}.md`);
    const title = /^# +(.+)$/m.exec(markdown)?.[1] ?? path.slice(1);
    return { path, title, markdown };
  });
}

export function registerRoutes(router: Router, deps: Deps): void {
  const pages = sitePages();
  for (const page of pages) {
    let html: Promise<string> | undefined;
    let anonymous: Promise<string> | undefined;
    const article = () => html ??= markdownToHtml(page.markdown);
    // Anyone signed out gets the one page drawn on first request; a signed-in reader, their own.
    const render = async (visitor: Visitor | undefined) =>
      visitor
        ? renderPage(<ArticlePage title={page.title} html={await article()} visitor={visitor} />)
        : await (anonymous ??= article().then((h) =>
          renderPage(<ArticlePage title={page.title} html={h} />)
        ));
    router.add(
      pageRoute({
        method: "get",
        path: page.path,
        access: "public",
        summary: page.title,
      }),
      async (c) => c.html(await render(await publicVisitor(c, deps))),
    );
  }

  // The docs ship with the executable and do not change while it runs: list them (every file
  // read for its title) once, on first use, not on each public request.
  let docs: ReturnType<typeof listDocs> | undefined;
  const docList = () =>
    docs ??= listDocs().catch((error) => {
      docs = undefined; // a failed read is tried again by the next request
      throw error;
    });
  const docsNav = async () => ({
    heading: "Documentation",
    links: (await docList()).map((d) => ({ href: `/docs/${d.id}`, label: d.title })),
  });
  router.add(
    pageRoute({
      method: "get",
      path: "/docs",
      access: "public",
      summary: "Documentation",
    }),
    async (c) => {
      const nav = await docsNav();
      const list = nav.links.map((l) => `- [${l.label}](${l.href})`).join("\n");
      const html = await markdownToHtml(
        "The reference for people who run, author with and build on the service.\n\n" + list,
      );
      const visitor = await publicVisitor(c, deps);
      return c.html(
        renderPage(<ArticlePage title="Documentation" html={html} nav={nav} visitor={visitor} />),
      );
    },
  );
  /** One documentation page by its id, answered as `answer` draws it. */
  const docRoute = (
    path: string,
    summary: string,
    answer: (
      c: AppContext,
      doc: Awaited<ReturnType<typeof getDoc>>,
    ) => Response | Promise<Response>,
  ) =>
    router.add(
      pageRoute({ method: "get", path, access: "public", summary, params: DOC_ID }),
      async (c, { params }) => answer(c, await getDoc(params.id)),
    );
  docRoute("/docs/:id", "A documentation page", async (c, doc) => {
    const page = (
      <ArticlePage
        title={doc.title}
        html={await markdownToHtml(doc.markdown)}
        nav={await docsNav()}
        current={`/docs/${doc.id}`}
        visitor={await publicVisitor(c, deps)}
      />
    );
    return c.html(renderPage(page));
  });
  docRoute(
    "/skill/:id",
    "A documentation page as Markdown, for agents",
    (c, doc) => c.body(doc.markdown, 200, { "content-type": "text/markdown; charset=utf-8" }),
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/robots.txt",
      access: "public",
      summary: "Crawler rules",
    }),
    (c) =>
      c.text(
        [
          "User-agent: *",
          ...["/api/", "/mcp", "/partials/", "/settings/", "/login/", "/oauth2/"].map((p) =>
            `Disallow: ${p}`
          ),
          "Allow: /",
          `Sitemap: ${deps.platform.origin()}/sitemap.xml`,
          "",
        ].join("\n"),
      ),
  );
  router.add(
    pageRoute({
      method: "get",
      path: "/sitemap.xml",
      access: "public",
      summary: "Sitemap",
    }),
    async (c) => {
      const paths = ["/", ...pages.map((p) => p.path), "/docs"];
      for (const doc of await docList()) paths.push(`/docs/${doc.id}`);
      const urls = paths.map((p) =>
        `  <url><loc>${xmlEscape(deps.platform.origin() + p)}</loc></url>`
      );
      const xml = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
        ...urls,
        "</urlset>",
        "",
      ].join("\n");
      return c.body(xml, 200, { "content-type": "application/xml; charset=utf-8" });
    },
  );
}

function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
