import { FolderList, type FolderListProps, folderTrail } from "../components/folder_list.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type NavItem, type ShellContext } from "../layouts/shell.tsx";

export interface FolderPageProps extends FolderListProps {
  ctx: ShellContext;
  nav: NavItem;
  title: string;
  lead: string;
  /** The editor for a new entry, shown when the viewer may author. */
  newHref?: string;
}

/** `/pipelines` and `/templates`: one folder level, or every match of a search. */
export function FolderPage(props: FolderPageProps) {
  const { ctx, nav, title, lead, newHref, ...list } = props;
  return (
    <AppShell title={title} nav={nav} ctx={ctx}>
      <PageHead
        trail={folderTrail(list.base, title, list.prefix)}
        title={title}
        actions={newHref && <a class="btn primary" href={newHref}>New {list.noun}</a>}
      >
        <p>{lead}</p>
      </PageHead>
      <FolderList {...list}>
        {title} appear here once someone in the workspace creates one.
      </FolderList>
    </AppShell>
  );
}
