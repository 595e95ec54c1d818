/**
 * The end every successful login shares: mint the session token with the resolved workspace and the
 * way it was opened, set the cookie and a fresh CSRF token, audit `auth.login.success` naming the
 * provider.
 */
import type { AuditLog } from "../audit/mod.ts";
import type { SessionTokens } from "../identity/mod.ts";
import type { AppContext } from "./context.ts";
import { issueCsrfToken, setSessionCookie } from "./cookies.ts";

export interface SignInDeps {
  audit: AuditLog;
  sessions: SessionTokens;
  secureCookies: boolean;
}

export async function startSession(
  c: AppContext,
  deps: SignInDeps,
  user: { id: string; email: string; display_name: string },
  how: { amr: "pwd" | "oidc"; provider: string; workspace: string | undefined },
): Promise<void> {
  const token = await deps.sessions.issue(
    { id: user.id, email: user.email, displayName: user.display_name },
    how.amr,
    how.workspace,
  );
  setSessionCookie(c, token, deps.sessions.ttlSeconds, deps.secureCookies);
  issueCsrfToken(c, deps.secureCookies);
  await deps.audit.record({
    event: "auth.login.success",
    userId: user.id,
    provider: how.provider,
    details: { provider: how.provider, amr: how.amr, workspace: how.workspace ?? null },
  });
}
