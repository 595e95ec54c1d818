import { BaseLayout } from "../layouts/base.tsx";

export interface DashboardProps {
  csrf: string;
  user: { email: string; displayName: string; isSuperAdmin: boolean };
  workspace: string | null;
  workspaces: { name: string; display_name: string; role: string }[];
}

/** `/dashboard`: who you are, where you act, and where else you can go. */
export function DashboardPage(props: DashboardProps) {
  return (
    <BaseLayout title="Dashboard">
      <h1>Hello, {props.user.displayName}</h1>
      <p class="muted">
        {props.user.email}
        {props.user.isSuperAdmin ? " · super admin" : ""}
      </p>
      <h2>Workspace</h2>
      <p>
        {props.workspace
          ? <strong>{props.workspace}</strong>
          : "You are not a member of any workspace yet."}
      </p>
      {props.workspaces.length > 1 && (
        <form method="post" action="/workspace/switch" class="inline">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <select name="workspace">
            {props.workspaces.map((w) => (
              <option key={w.name} value={w.name} selected={w.name === props.workspace}>
                {w.display_name} ({w.role})
              </option>
            ))}
          </select>{" "}
          <button type="submit">Switch</button>
        </form>
      )}
      <p>
        <a href="/settings/password">Change password</a>
      </p>
      <form method="post" action="/logout">
        <input type="hidden" name="_csrf" value={props.csrf} />
        <button type="submit">Sign out</button>
      </form>
    </BaseLayout>
  );
}
