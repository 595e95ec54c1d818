/** Public pages: the landing page, the error-code reference, and static assets. */
import { z } from "zod";
import { catalogue } from "../../errors/mod.ts";
import { renderPage } from "../../../ui/render.tsx";
import { LandingPage } from "../../../ui/pages/landing.tsx";
import { ErrorCodesPage } from "../../../ui/pages/error_codes.tsx";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";
import { pageRoute, publicVisitor } from "../ui/shell.ts";
import { serveStatic } from "../static_assets.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "platform" | "identity">;

const STATIC_ROUTES = [
  ["/favicon.ico", "The site icon (SVG)"],
  ["/css/:file", "Stylesheet"],
  ["/js/:file", "Script"],
  ["/vendor/:file", "Browser library from its npm package"],
] as const;

export function registerRoutes(router: Router, deps: Deps): void {
  const landing = renderPage(<LandingPage version={deps.platform.buildInfo.version} />);
  router.add(
    pageRoute({
      method: "get",
      path: "/",
      access: "public",
      summary: "Landing page",
    }),
    // Sign-in lands on `/`; a signed-in person wants the application there.
    (c) => c.get("principal") ? c.redirect("/dashboard", 302) : c.html(landing),
  );

  const errorRows = Object.entries(catalogue).map(([code, e]) => ({ code, ...e }))
    .sort((a, b) => a.code.localeCompare(b.code));
  const errorsPage = renderPage(<ErrorCodesPage rows={errorRows} />);
  router.add(
    pageRoute({
      method: "get",
      path: "/docs/errors",
      access: "public",
      summary: "Error code reference",
    }),
    // The same for every anonymous reader: drawn once. A signed-in one sees their own header.
    async (c) => {
      const visitor = await publicVisitor(c, deps);
      return c.html(
        visitor ? renderPage(<ErrorCodesPage rows={errorRows} visitor={visitor} />) : errorsPage,
      );
    },
  );

  // The static files, each route answering for one folder of ui/static_files.ts.
  for (const [path, summary] of STATIC_ROUTES) {
    router.add(
      pageRoute({
        method: "get",
        path,
        access: "public",
        summary,
        ...path.endsWith(":file") ? { params: z.object({ file: z.string().max(100) }) } : {},
        query: z.object({ v: z.string().max(64).optional() }),
      }),
      (c) => serveStatic(c) ?? c.notFound(),
    );
  }
}
