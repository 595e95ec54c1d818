/**
 * The folder-tree list page that pipelines and templates share: one folder level, or with `q`
 * every match across full paths, paged, with "New" when the viewer may author.
 */
import { z } from "zod";
import type { FolderEntry } from "../../../ui/components/folder_list.tsx";
import { FolderPage } from "../../../ui/pages/folder_page.tsx";
import type { NavItem } from "../../../ui/layouts/shell.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Page } from "../page.ts";
import type { Router } from "../routing.ts";
import { allows, shellContext, type UiPageDeps } from "./shell.ts";

const PAGE = 50;

export interface FolderListing {
  prefix: string;
  folders: { path: string; segment: string; count: number }[];
  entries: FolderEntry[];
  total: number;
}

export function folderListRoute(router: Router, deps: UiPageDeps, spec: {
  nav: NavItem & ("pipelines" | "templates");
  noun: string;
  title: string;
  lead: string;
  newHref: string;
  load: (
    workspaceId: string,
    at: { q: string; prefix: string; page: Page },
  ) => Promise<FolderListing>;
}): void {
  const base = `/${spec.nav}`;
  router.add({
    method: "get",
    path: base,
    tag: "pages",
    summary: `${spec.title}: one folder level, or a search across every path`,
    kind: "html",
    access: "content.read",
    query: z.object({
      prefix: z.string().max(200).optional(),
      q: z.string().max(200).optional(),
    }),
    page: { defaultLimit: PAGE, maxLimit: PAGE },
  }, async (c, { actor, workspace, query, page }) => {
    const q = query.q?.trim() ?? "";
    const [ctx, listing] = await Promise.all([
      shellContext(c, deps, actor),
      spec.load(workspace.id, { q, prefix: query.prefix ?? "", page }),
    ]);
    return c.html(renderPage(
      <FolderPage
        ctx={ctx}
        nav={spec.nav}
        title={spec.title}
        lead={spec.lead}
        newHref={allows({ actor, workspace }, "content.write") ? spec.newHref : undefined}
        base={base}
        noun={spec.noun}
        now={new Date()}
        q={q}
        {...listing}
        offset={page.offset}
        limit={page.limit}
      />,
    ));
  });
}
