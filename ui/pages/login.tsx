import { CenteredLayout } from "../layouts/base.tsx";

const BANNERS: Record<string, string> = {
  credentials: "The email or password is wrong.",
  locked: "Too many failed attempts. The account is locked for a while.",
  inactive: "Your account is deactivated. Contact an administrator.",
  domain_not_allowed: "Your email domain is not allowed to sign in here.",
  oidc: "Sign-in with your identity provider failed. Try again.",
};

export interface LoginPageProps {
  csrf: string;
  localEnabled: boolean;
  providers: { name: string; label: string }[];
  error?: string;
}

/** `/login`: the form when local accounts are on, a divider when both, one button per provider. */
export function LoginPage(props: LoginPageProps) {
  const banner = props.error ? BANNERS[props.error] : undefined;
  return (
    <CenteredLayout title="Sign in">
      <h1>Sign in</h1>
      <p class="muted">Welcome back. Sign in to run and publish your pipelines.</p>
      <section>
        {banner && <p class="banner error" role="alert">{banner}</p>}
        {props.localEnabled && (
          <form method="post" action="/login" class="stack">
            <input type="hidden" name="_csrf" value={props.csrf} />
            <label>
              Email
              <input type="email" name="email" autocomplete="username" required autofocus />
            </label>
            <label>
              Password
              <input type="password" name="password" autocomplete="current-password" required />
            </label>
            <button type="submit" class="primary">Sign in</button>
          </form>
        )}
        {props.localEnabled && props.providers.length > 0 && <p class="divider">or</p>}
        {props.providers.map((p) => (
          <p key={p.name}>
            <a class="button" href={`/oauth2/authorization/${p.name}`}>Sign in with {p.label}</a>
          </p>
        ))}
        {!props.localEnabled && props.providers.length === 0 && (
          <p class="muted">No sign-in method is configured. Ask the operator to enable one.</p>
        )}
      </section>
    </CenteredLayout>
  );
}
