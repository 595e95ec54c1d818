/** Public pages: the landing page, the error-code reference, and static assets. */
import { z } from "zod";
import { catalogue } from "../../errors/mod.ts";
import { renderPage } from "../../../ui/render.tsx";
import { LandingPage } from "../../../ui/pages/landing.tsx";
import { ErrorCodesPage } from "../../../ui/pages/error_codes.tsx";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";

const STATIC_ROOT = new URL("../../../ui/static/", import.meta.url);
const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  map: "application/json",
};

export function registerRoutes(router: Router, deps: Pick<Services, "buildInfo">): void {
  const landing = renderPage(<LandingPage version={deps.buildInfo.version} />);
  router.add(
    {
      method: "get",
      path: "/",
      tag: "pages",
      access: "public",
      summary: "Landing page",
      kind: "html",
    },
    (c) => c.html(landing),
  );

  const errorRows = Object.entries(catalogue).map(([code, e]) => ({ code, ...e }))
    .sort((a, b) => a.code.localeCompare(b.code));
  const errorsPage = renderPage(<ErrorCodesPage rows={errorRows} />);
  router.add(
    {
      method: "get",
      path: "/docs/errors",
      tag: "pages",
      access: "public",
      summary: "Error code reference",
      kind: "html",
    },
    (c) => c.html(errorsPage),
  );

  for (const folder of ["css", "js", "vendor"]) {
    router.add({
      method: "get",
      path: `/${folder}/:file`,
      tag: "pages",
      access: "public",
      summary: "Static asset",
      kind: "html",
      params: z.object({
        file: z.string().regex(/^[A-Za-z0-9_.-]+\.[a-z0-9]+$/).refine((f) => !f.startsWith(".")),
      }),
    }, async (c, { params }) => {
      try {
        const bytes = await Deno.readFile(new URL(`${folder}/${params.file}`, STATIC_ROOT));
        const ext = params.file.slice(params.file.lastIndexOf(".") + 1);
        return c.body(bytes, 200, {
          "content-type": CONTENT_TYPES[ext] ?? "application/octet-stream",
          "cache-control": "public, max-age=3600",
        });
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return c.notFound();
        throw e;
      }
    });
  }
}
