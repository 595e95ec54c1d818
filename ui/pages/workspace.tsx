import { ConfirmDialog, ConfirmLink } from "../components/confirm.tsx";
import { draftFields, EMAIL, InputField } from "../components/field.tsx";
import { Card, FormCard } from "../components/card.tsx";
import { ScrollTable } from "../components/head.tsx";
import {
  FlagChecks,
  type Flags,
  flagWords,
  MemberRow,
  type MemberView,
  type RowError,
} from "../components/member_row.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

export type { MemberView, RowError } from "../components/member_row.tsx";

/** A pending invitation, its inviter named. */
export interface InvitationView extends Flags {
  email: string;
  invited_by: string;
  invited_at: string;
}

/** A refusal of a form, placed on the field it concerns when it names one. */
export interface FormError {
  code: string;
  message: string;
  field?: string;
}

/** What the add-by-email form holds, kept across a refusal. */
export interface AddDraft extends Flags {
  email: string;
}

/** What a finished act says at the top of the page. */
export interface Flash {
  tone: "ok" | "error";
  text: string;
}

/** The flash, if any: a success is a polite status, a failure an alert. */
export function FlashBanner({ flash }: { flash?: Flash | null }) {
  if (!flash) return null;
  return (
    <p class={`banner ${flash.tone}`} role={flash.tone === "ok" ? "status" : "alert"}>
      {flash.text}
    </p>
  );
}

export interface WorkspacePageProps {
  ctx: ShellContext;
  ws: { name: string; display_name: string; created_at: string };
  /** This page's address, which the no-script forms and dialogs come back to. */
  base: string;
  members: MemberView[];
  invitations: InvitationView[];
  /** `service.datasources.member-writes-enabled`: an instance setting, shown here, not edited. */
  memberDatasources: boolean;
  flash?: Flash;
  /** A refusal on one member's row. */
  rowError?: { userId: string; error: RowError };
  add?: { draft: AddDraft; error?: FormError };
  settings?: { display_name: string; error?: FormError };
  /** The act being confirmed without the script (`?confirm=`). */
  confirm?: { kind: "remove"; member: MemberView } | {
    kind: "revoke";
    invitation: InvitationView;
  };
}

/**
 * `/workspaces/{name}` (the nav's Workspace opens the active one): its members with their flags
 * edited in place, add by email, pending invitations, and its settings. A workspace admin's page,
 * and a super admin's in every workspace.
 */
export function WorkspacePage(props: WorkspacePageProps) {
  const { ctx, ws } = props;
  return (
    <AppShell title={`Workspace ${ws.display_name}`} nav="workspace" ctx={ctx}>
      <PageHead title={ws.display_name}>
        <p class="mono small">
          {ws.name} · created {ws.created_at.slice(0, 10)} · {props.members.length} member
          {props.members.length === 1 ? "" : "s"}
          {props.invitations.length > 0 && ` · ${props.invitations.length} invited`}
        </p>
      </PageHead>
      <FlashBanner flash={props.flash} />
      <Card
        id="members"
        data-swap-refusal
        title="Members"
        note="Admin includes author; the last admin can be neither removed nor demoted."
      >
        <ScrollTable
          class="members"
          cols={["Member", "Joined", "Author", "Promoter", "Admin", "Actions"]}
        >
          {props.members.map((m) => (
            <MemberRow
              key={m.user_id}
              m={m}
              base={props.base}
              workspace={ws.name}
              csrf={ctx.csrf}
              error={props.rowError?.userId === m.user_id ? props.rowError.error : undefined}
            />
          ))}
        </ScrollTable>
        <p class="muted small body flag-legend">
          <strong>Author</strong> edits pipelines, templates and endpoints.{" "}
          <strong>Promoter</strong> releases and promotes. <strong>Admin</strong>{" "}
          manages members, datasources and the audit log, and is an author too. With none: a viewer,
          who reads and runs.
        </p>
      </Card>
      <div class="grid cols-2 section-gap">
        <AddMemberForm
          base={props.base}
          workspace={ws.name}
          csrf={ctx.csrf}
          draft={props.add?.draft ?? { email: "", author: false, promoter: false, admin: false }}
          error={props.add?.error}
        />
        <Invitations
          invitations={props.invitations}
          base={props.base}
        />
      </div>
      <SettingsForm
        ws={ws}
        csrf={ctx.csrf}
        value={props.settings?.display_name ?? ws.display_name}
        error={props.settings?.error}
        memberDatasources={props.memberDatasources}
      />
      {props.confirm?.kind === "remove" && (
        <RemoveDialog
          m={props.confirm.member}
          ws={ws}
          base={props.base}
          csrf={ctx.csrf}
        />
      )}
      {props.confirm?.kind === "revoke" && (
        <ConfirmDialog
          id="confirm-act"
          title={`Revoke the invitation of ${props.confirm.invitation.email}?`}
          action={`/partials/workspaces/${ws.name}/invitations/${
            encodeURIComponent(props.confirm.invitation.email)
          }/revoke`}
          csrf={ctx.csrf}
          confirm="Revoke invitation"
          danger
          cancel={props.base}
        >
          <p>
            When {props.confirm.invitation.email} first signs in they will not join{" "}
            {ws.display_name} (as{" "}
            {flagWords(props.confirm.invitation)}). You can invite them again at any time.
          </p>
        </ConfirmDialog>
      )}
    </AppShell>
  );
}

/** Remove: says what the member loses before anything changes. */
function RemoveDialog(props: {
  m: MemberView;
  ws: WorkspacePageProps["ws"];
  base: string;
  csrf: string;
}) {
  const { m, ws } = props;
  const who = m.display_name || m.email;
  return (
    <ConfirmDialog
      id="confirm-act"
      title={`Remove ${who} from ${ws.display_name}?`}
      action={`/partials/workspaces/${ws.name}/members/${m.user_id}/remove`}
      csrf={props.csrf}
      confirm="Remove member"
      danger
      cancel={props.base}
    >
      <p>
        {m.self ? "You lose" : `${who} (${m.email}) loses`} membership as{" "}
        <strong>{flagWords(m)}</strong>: {m.self ? "you" : "they"}{" "}
        can no longer open this workspace's pipelines, templates, runs or results, and API keys
        {m.self ? " you" : " they"}{" "}
        issued here are refused from then on (within about a minute). What {m.self ? "you" : "they"}
        {" "}
        authored stays. Adding {m.self ? "you" : "them"} back starts over as a new membership.
      </p>
    </ConfirmDialog>
  );
}

function AddMemberForm(props: {
  base: string;
  workspace: string;
  csrf: string;
  draft: AddDraft;
  error?: FormError;
}) {
  const { draft, error } = props;
  return (
    <FormCard
      id="add-member"
      title="Add a member"
      action={`/partials/workspaces/${props.workspace}/members`}
      csrf={props.csrf}
      refusal={error?.field !== "email" && error}
      submit="Add member"
    >
      <InputField
        {...draftFields("add", draft, error).bind("email")}
        label="Email"
        hint="Someone with an account joins at once; anyone else gets an invitation that turns into a membership when they first sign in. No mail is sent."
        input={EMAIL}
      />
      <FlagChecks idPrefix="add" flags={draft} />
    </FormCard>
  );
}

function Invitations(props: { invitations: InvitationView[]; base: string }) {
  return (
    <Card id="invitations" title="Pending invitations">
      {props.invitations.length === 0 ? <p class="empty">No one is invited.</p> : (
        <ul class="list">
          {props.invitations.map((i) => (
            <li key={i.email}>
              <div>
                <span class="title">{i.email}</span>
                <div class="meta">
                  as {flagWords(i)} · by {i.invited_by} on {i.invited_at.slice(0, 10)}
                </div>
              </div>
              <ConfirmLink
                class="btn ghost small danger"
                href={`${props.base}?confirm=revoke&email=${encodeURIComponent(i.email)}`}
                label={`Revoke the invitation of ${i.email}`}
              >
                Revoke
              </ConfirmLink>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function SettingsForm(props: {
  ws: WorkspacePageProps["ws"];
  csrf: string;
  value: string;
  error?: FormError;
  memberDatasources: boolean;
}) {
  const { ws, error } = props;
  return (
    <FormCard
      id="settings"
      class="section-gap"
      title="Settings"
      action={`/partials/workspaces/${ws.name}/settings`}
      formClass="settings-form"
      csrf={props.csrf}
      refusal={error?.field !== "display_name" && error}
      submit="Save settings"
      after={
        <div class="body member-datasources">
          <h3>Member datasources</h3>
          <p>
            {props.memberDatasources
              ? "On: workspace admins register, change and delete this workspace's own datasources."
              : "Off: only a super admin registers or changes datasources, this workspace's included."}
          </p>
          <p class="muted small">
            An instance setting (<code>service.datasources.member-writes-enabled</code>), not one of
            this workspace's; instance datasources reach a workspace when a super admin grants them.
          </p>
          <a class="btn" href="/datasources">Open datasources</a>
        </div>
      }
    >
      <div class="grid cols-2">
        <InputField
          id="ws-display-name"
          label="Display name"
          hint="What the workspace switcher and page titles show."
          error={error?.field === "display_name" ? error.message : null}
          name="display_name"
          value={props.value}
          input={{ required: true, maxLength: 200 }}
        />
        <InputField
          id="ws-name"
          label="Name"
          hint="Fixed at creation; requests and keys name the workspace by it."
          value={ws.name}
          input={{ readOnly: true, class: "mono" }}
        />
      </div>
    </FormCard>
  );
}
