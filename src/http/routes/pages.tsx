/** Public pages: the landing page, the error-code reference, and static assets. */
import { z } from "zod";
import { catalogue } from "../../errors/mod.ts";
import { assets } from "../../lib/assets.ts";
import { renderPage } from "../../../ui/render.tsx";
import { LandingPage } from "../../../ui/pages/landing.tsx";
import { ErrorCodesPage } from "../../../ui/pages/error_codes.tsx";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";
import { pageRoute } from "../ui/shell.ts";
import { vendorFile } from "../vendor.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "platform">;

const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  map: "application/json",
};

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
    (c) => c.html(errorsPage),
  );

  const favicon = assets.readSync("ui/static/favicon.svg");
  router.add(
    pageRoute({
      method: "get",
      path: "/favicon.ico",
      access: "public",
      summary: "The site icon (SVG)",
    }),
    (c) =>
      c.body(favicon, 200, {
        "content-type": "image/svg+xml",
        "cache-control": "public, max-age=86400",
      }),
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/vendor/:file",
      access: "public",
      summary: "Browser library from its npm package",
      params: z.object({ file: z.string().max(100) }),
    }),
    (c, { params }) => {
      const file = vendorFile(params.file);
      if (!file) return c.notFound();
      return c.body(file.body, 200, {
        "content-type": file.type,
        "cache-control": "public, max-age=86400",
      });
    },
  );

  for (const folder of ["css", "js"]) {
    router.add(
      pageRoute({
        method: "get",
        path: `/${folder}/:file`,
        access: "public",
        summary: "Static asset",
        params: z.object({
          file: z.string().regex(/^[A-Za-z0-9_.-]+\.[a-z0-9]+$/).refine((f) => !f.startsWith(".")),
        }),
      }),
      async (c, { params }) => {
        try {
          const bytes = await assets.read(`ui/static/${folder}/${params.file}`);
          const ext = params.file.slice(params.file.lastIndexOf(".") + 1);
          return c.body(bytes, 200, {
            "content-type": CONTENT_TYPES[ext] ?? "application/octet-stream",
            "cache-control": "public, max-age=3600",
          });
        } catch (e) {
          if (e instanceof Deno.errors.NotFound) return c.notFound();
          throw e;
        }
      },
    );
  }
}
