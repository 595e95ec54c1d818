/** The template pages: the folder tree with search, and one template's working version. */
import { z } from "zod";
import { TemplatePage } from "../../../ui/pages/template.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { AppError } from "../../errors/mod.ts";
import { folderListRoute } from "./folder_route.tsx";
import { allows, shellContext, type UiPageDeps, userNames } from "./shell.ts";

export function templatePageRoutes(router: Router, deps: UiPageDeps): void {
  folderListRoute(router, deps, {
    nav: "templates",
    noun: "template",
    title: "Templates",
    lead: "Versioned SQL in Liquid that pipeline nodes render, with parameters as placeholders.",
    newHref: "/templates/new",
    load: async (workspaceId, { q, prefix, page }) => {
      const level = q
        ? { prefix: "", folders: [], ...(await deps.templates.list(workspaceId, { q }, page)) }
        : await deps.templates.folder(workspaceId, prefix, {}, page).then((l) => ({
          prefix: l.prefix,
          folders: l.folders.map((f) => ({ ...f, count: f.template_count })),
          items: l.templates,
          total: l.total,
        }));
      return {
        prefix: level.prefix,
        folders: level.folders,
        total: level.total,
        entries: level.items.map((t) => ({
          href: `/templates/view?id=${encodeURIComponent(t.id)}`,
          title: t.display_name,
          path: t.id,
          status: t.status,
          current_version: t.current_version,
          updated_at: t.updated_at,
          tag: t.dialect?.toLowerCase() ?? t.type,
        })),
      };
    },
  });

  router.add({
    method: "get",
    path: "/templates/view",
    tag: "pages",
    summary: "A template: its body, imports and versions",
    kind: "html",
    access: "content.read",
    query: z.object({
      id: z.string().min(1).max(200),
      saved: z.string().max(4).optional(),
      released: z.coerce.number().int().optional(),
      error: z.string().max(400).optional(),
    }),
    errors: ["template.not_found"],
  }, async (c, { actor, workspace, query }) => {
    const workspaceId = workspace.id;
    const [ctx, template, versions, usedBy] = await Promise.all([
      shellContext(c, deps, actor),
      deps.templates.get(workspaceId, query.id),
      deps.templates.versions(workspaceId, query.id),
      deps.templates.usedBy(workspaceId, query.id),
    ]);
    const names = await userNames(deps, versions.map((v) => v.created_by));
    const preview = template.type !== "sql"
      ? null
      : await deps.templates.render(workspaceId, { name: template.id }).catch((e) => {
        if (e instanceof AppError) return { error: `${e.code}: ${e.userMessage}` };
        throw e;
      });
    return c.html(renderPage(
      <TemplatePage
        ctx={ctx}
        now={new Date()}
        template={template}
        versions={versions.map((v) => ({
          version: v.version,
          status: v.status,
          created_by_name: names.get(v.created_by) ?? "unknown",
          created_at: v.created_at,
          released_at: v.released_at,
        })).reverse()}
        usedBy={usedBy}
        preview={preview}
        can={{
          write: allows({ actor, workspace }, "content.write"),
          release: allows({ actor, workspace }, "versions.release"),
        }}
        flash={{ saved: query.saved !== undefined, released: query.released, error: query.error }}
      />,
    ));
  });
}
