import { FolderCrumbs, FolderList, type FolderListProps } from "../components/folder_list.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** `/pipelines`: one folder level, or every match of a search across full paths. */
export function PipelinesPage(
  props: { ctx: ShellContext; canCreate: boolean } & Omit<FolderListProps, "base" | "noun">,
) {
  const { ctx, canCreate, ...list } = props;
  return (
    <AppShell title="Pipelines" nav="pipelines" ctx={ctx}>
      <div class="page-head">
        <div>
          <FolderCrumbs base="/pipelines" root="Pipelines" prefix={props.prefix} />
          <h1>Pipelines</h1>
          <p>DAGs of SQL that read, stage and deliver one result.</p>
        </div>
        {canCreate && (
          <div class="actions">
            <a class="btn primary" href="/pipelines/new">New pipeline</a>
          </div>
        )}
      </div>
      <FolderList base="/pipelines" noun="pipeline" {...list}>
        Pipelines appear here once someone in the workspace creates one.
      </FolderList>
    </AppShell>
  );
}
