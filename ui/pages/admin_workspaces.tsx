import { ConfirmDialog, ConfirmLink } from "../components/confirm.tsx";
import { draftFields, InputField } from "../components/field.tsx";
import { Card, FormCard } from "../components/card.tsx";
import { ScrollTable } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { type Flash, FlashBanner, type FormError } from "./workspace.tsx";

/** One workspace of the instance as the list shows it. */
export interface WorkspaceSummary {
  name: string;
  display_name: string;
  created_at: string;
  /** Set while deactivated: the row is drawn greyed with this date. */
  deactivated_at?: string;
  members: number;
  invitations: number;
}

export interface AdminWorkspacesProps {
  ctx: ShellContext;
  workspaces: WorkspaceSummary[];
  flash?: Flash;
  create?: { name: string; display_name: string; error?: FormError };
  /** The workspace whose deactivation is being confirmed without the script. */
  confirm?: WorkspaceSummary;
}

/**
 * `/admin/workspaces` (super admin): every workspace of the instance, deactivated ones greyed
 * with their date; create, deactivate (asked first, saying what stops) and reactivate.
 */
export function AdminWorkspacesPage(props: AdminWorkspacesProps) {
  const { ctx } = props;
  const draft = props.create ?? { name: "", display_name: "" };
  const { bind } = draftFields("new-ws", draft, draft.error);
  return (
    <AppShell title="All workspaces" nav="workspaces" ctx={ctx}>
      <PageHead title="All workspaces">
        <p>
          Every workspace of this instance. Content, members and keys belong to one workspace; a
          deactivated one keeps everything but nobody can select it.
        </p>
      </PageHead>
      <FlashBanner flash={props.flash} />
      <FormCard
        id="create-workspace"
        title="Create a workspace"
        action="/partials/admin/workspaces"
        csrf={ctx.csrf}
        refusal={!draft.error?.field && draft.error}
        submit="Create workspace"
      >
        <div class="grid cols-2">
          <InputField
            {...bind("name")}
            label="Name"
            hint="a-z, 0-9, _ and -, up to 63 characters; it cannot change later, and a deleted workspace's name stays taken."
            input={{ required: true, maxLength: 63, class: "mono", autocomplete: "off" }}
          />
          <InputField
            {...bind("display_name")}
            label="Display name"
            hint="Optional; the name when empty."
            input={{ maxLength: 200 }}
          />
        </div>
        <p class="muted small">
          You get no membership in it: add its first admin on its page, by email.
        </p>
      </FormCard>
      <Card
        class="section-gap"
        id="workspace-list"
        title="Workspaces"
        note={<>{props.workspaces.length} in all</>}
      >
        <ScrollTable
          class="workspaces"
          cols={["Workspace", "Created", { label: "Members", num: true }, "State", "Actions"]}
        >
          {props.workspaces.map((w) => (
            <tr key={w.name} class={w.deactivated_at ? "deactivated" : undefined}>
              <td>
                {w.deactivated_at
                  ? <span class="title">{w.display_name}</span>
                  : <a class="title" href={`/workspaces/${w.name}`}>{w.display_name}</a>}
                <div class="muted small mono">{w.name}</div>
              </td>
              <td class="nowrap created">{w.created_at.slice(0, 10)}</td>
              <td class="num members">
                <span>{w.members}</span>
                {w.invitations > 0 && <div class="muted small">+{w.invitations} invited</div>}
              </td>
              <td class="nowrap state">
                {w.deactivated_at
                  ? (
                    <span class="badge">
                      deactivated {w.deactivated_at.slice(0, 10)}
                    </span>
                  )
                  : <span class="badge ok">active</span>}
              </td>
              <td class="row-actions nowrap">
                {w.deactivated_at
                  ? (
                    <form
                      method="post"
                      action={`/partials/admin/workspaces/${w.name}/reactivate`}
                      class="inline"
                    >
                      <input type="hidden" name="_csrf" value={ctx.csrf} />
                      <button
                        type="submit"
                        class="small"
                        aria-label={`Reactivate ${w.display_name}`}
                      >
                        Reactivate
                      </button>
                    </form>
                  )
                  : (
                    <ConfirmLink
                      class="btn ghost small danger"
                      href={`/admin/workspaces?confirm=deactivate&name=${w.name}`}
                      label={`Deactivate ${w.display_name}`}
                    >
                      Deactivate
                    </ConfirmLink>
                  )}
              </td>
            </tr>
          ))}
        </ScrollTable>
      </Card>
      {props.confirm && !props.confirm.deactivated_at && (
        <ConfirmDialog
          id="confirm-act"
          title={`Deactivate ${props.confirm.display_name}?`}
          action={`/partials/admin/workspaces/${props.confirm.name}/deactivate`}
          csrf={ctx.csrf}
          confirm="Deactivate workspace"
          danger
          cancel="/admin/workspaces"
        >
          <p>
            {props.confirm.members === 0
              ? "Nobody can select it any more"
              : `Its ${props.confirm.members} member${
                props.confirm.members === 1 ? "" : "s"
              } can no longer select it`}, its published endpoints answer 404, API keys pinned to it
            are refused and its schedules stop. Nothing is deleted: reactivating brings it all back.
          </p>
        </ConfirmDialog>
      )}
    </AppShell>
  );
}
