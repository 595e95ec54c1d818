/**
 * The folder-tree list page that pipelines and templates share: one folder level, or with `q`
 * every match across full paths, paged, with "New" when the viewer may author.
 */
import { z } from "zod";
import type { FolderEntry } from "../../../ui/components/folder_list.tsx";
import { FolderPage } from "../../../ui/pages/folder_page.tsx";
import type { NavItem } from "../../../ui/layouts/shell.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { FolderLevelAnswer } from "../../lib/folder_path.ts";
import type { Page } from "../page.ts";
import type { Router } from "../routing.ts";
import { allows, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const PAGE = 50;

export interface FolderListing {
  prefix: string;
  folders: { path: string; segment: string; count: number }[];
  entries: FolderEntry[];
  total: number;
}

/** `o[key]`, typed by what `o` is known to hold under a key built from the noun. */
function field<K extends string, V>(o: Record<K, V>, key: K): V {
  return o[key];
}

export function folderListRoute<N extends string, Row>(router: Router, deps: UiPageDeps, spec: {
  nav: NavItem & ("pipelines" | "templates");
  noun: N;
  title: string;
  lead: string;
  newHref: string;
  /** Every entry whose path matches `q`, paged. */
  search: (workspaceId: string, q: string, page: Page) => Promise<{ items: Row[]; total: number }>;
  /** One level of the tree, as the API answers it. */
  level: (workspaceId: string, prefix: string, page: Page) => Promise<FolderLevelAnswer<N, Row>>;
  entry: (row: Row) => FolderEntry;
}): void {
  const base = `/${spec.nav}`;
  const load = async (
    workspaceId: string,
    q: string,
    prefix: string,
    page: Page,
  ): Promise<FolderListing> => {
    if (q) {
      const found = await spec.search(workspaceId, q, page);
      return { prefix: "", folders: [], total: found.total, entries: found.items.map(spec.entry) };
    }
    const level = await spec.level(workspaceId, prefix, page);
    const count = `${spec.noun}_count` as `${N}_count`;
    return {
      prefix: level.prefix,
      folders: level.folders.map((f) => ({ ...f, count: field<`${N}_count`, number>(f, count) })),
      total: level.total,
      entries: field<`${N}s`, Row[]>(level, `${spec.noun}s`).map(spec.entry),
    };
  };
  router.add(
    pageRoute({
      method: "get",
      path: base,
      summary: `${spec.title}: one folder level, or a search across every path`,
      access: "content.read",
      query: z.object({
        prefix: z.string().max(200).optional(),
        q: z.string().max(200).optional(),
      }),
      page: { defaultLimit: PAGE, maxLimit: PAGE },
    }),
    async (c, { actor, workspace, query, page }) => {
      const q = query.q?.trim() ?? "";
      const [ctx, listing] = await Promise.all([
        shellContext(c, deps, actor),
        load(workspace.id, q, query.prefix ?? "", page),
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
    },
  );
}
