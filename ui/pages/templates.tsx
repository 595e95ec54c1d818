import { FolderCrumbs, FolderList, type FolderListProps } from "../components/folder_list.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** `/templates`: the template folder tree, or every match of a search. */
export function TemplatesPage(
  props: { ctx: ShellContext; canCreate: boolean } & Omit<FolderListProps, "base" | "noun">,
) {
  const { ctx, canCreate, ...list } = props;
  return (
    <AppShell title="Templates" nav="templates" ctx={ctx}>
      <div class="page-head">
        <div>
          <FolderCrumbs base="/templates" root="Templates" prefix={props.prefix} />
          <h1>Templates</h1>
          <p>
            Versioned SQL in Liquid that pipeline nodes render, with parameters as placeholders.
          </p>
        </div>
        {canCreate && (
          <div class="actions">
            <a class="btn primary" href="/templates/new">New template</a>
          </div>
        )}
      </div>
      <FolderList base="/templates" noun="template" {...list}>
        Templates appear here once someone in the workspace creates one.
      </FolderList>
    </AppShell>
  );
}
