/** The template pages: the folder tree with search, and one template's working version. */
import { z } from "zod";
import { TemplatePage } from "../../../ui/pages/template.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { AppError } from "../../errors/mod.ts";
import { folderListRoute } from "./folder_route.tsx";
import { allows, pageRoute, shellContext, type UiPageDeps, versionRows } from "./shell.ts";

export function templatePageRoutes(router: Router, deps: UiPageDeps): void {
  folderListRoute(router, deps, {
    nav: "templates",
    noun: "template",
    title: "Templates",
    lead: "Versioned SQL in Liquid that pipeline nodes render, with parameters as placeholders.",
    newHref: "/templates/new",
    search: (workspaceId, q, page) => deps.content.templates.list(workspaceId, { q }, page),
    level: (workspaceId, prefix, page) =>
      deps.content.templates.folder(workspaceId, prefix, {}, page),
    entry: (t) => ({
      href: `/templates/view?id=${encodeURIComponent(t.id)}`,
      title: t.display_name,
      path: t.id,
      status: t.status,
      current_version: t.current_version,
      updated_at: t.updated_at,
      tag: t.dialect?.toLowerCase() ?? t.type,
    }),
  });

  router.add(
    pageRoute({
      method: "get",
      path: "/templates/view",
      summary: "A template: its body, imports and versions",
      access: "content.read",
      query: z.object({
        id: z.string().min(1).max(200),
        saved: z.string().max(4).optional(),
        released: z.coerce.number().int().optional(),
        error: z.string().max(400).optional(),
        confirm: z.literal("release").optional(),
      }),
      errors: ["template.not_found"],
    }),
    async (c, { actor, workspace, query }) => {
      const workspaceId = workspace.id;
      const [ctx, template, versions, usedBy] = await Promise.all([
        shellContext(c, deps, actor),
        deps.content.templates.get(workspaceId, query.id),
        deps.content.templates.versions(workspaceId, query.id),
        deps.content.templates.usedBy(workspaceId, query.id),
      ]);
      const preview = template.type !== "sql"
        ? null
        : await deps.content.templates.render(workspaceId, { name: template.id }).catch((e) => {
          if (e instanceof AppError) return { error: `${e.code}: ${e.userMessage}` };
          throw e;
        });
      return c.html(renderPage(
        <TemplatePage
          ctx={ctx}
          now={new Date()}
          template={template}
          versions={await versionRows(deps, versions)}
          usedBy={usedBy}
          preview={preview}
          can={{
            write: allows({ actor, workspace }, "content.write"),
            release: allows({ actor, workspace }, "versions.release"),
          }}
          flash={{ saved: query.saved !== undefined, released: query.released, error: query.error }}
          confirmRelease={query.confirm === "release"}
        />,
      ));
    },
  );
}
