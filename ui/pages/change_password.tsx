import { CenteredLayout } from "../layouts/base.tsx";

export interface ChangePasswordProps {
  csrf: string;
  forced: boolean;
  error?: string;
  changed?: boolean;
}

/** `/settings/password`: the self-service change (forced after seeding or an admin reset). */
export function ChangePasswordPage(props: ChangePasswordProps) {
  return (
    <CenteredLayout title="Change password">
      <h1>Change password</h1>
      <section>
        {props.forced && <p class="banner">Choose a new password before you continue.</p>}
        {props.changed && <p class="banner ok" role="status">Your password was changed.</p>}
        {props.error && <p class="banner error" role="alert">{props.error}</p>}
        <form method="post" action="/partials/account/password" class="stack">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <label>
            Current password
            <input
              type="password"
              name="current_password"
              autocomplete="current-password"
              required
            />
          </label>
          <label>
            New password (12 to 128 characters)
            <input
              type="password"
              name="new_password"
              autocomplete="new-password"
              minLength={12}
              maxLength={128}
              required
            />
          </label>
          <button type="submit" class="primary">Change password</button>
        </form>
        <form method="post" action="/logout">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <button type="submit" class="link">Sign out</button>
        </form>
      </section>
    </CenteredLayout>
  );
}
