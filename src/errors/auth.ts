/** Sign-in, sessions, API keys, scopes and roles, CSRF, users. */
import type { CatalogueEntry } from "./entry.ts";

export const authErrors = {
  "auth.api_key.expiry_invalid": {
    status: 400,
    message: "The API key expiry is unusable: {reason}.",
    user_message: "The expiry date is not valid.",
  },
  "auth.login.domain_not_allowed": {
    status: 403,
    message: "The email domain {domain} is not on the sign-in allowlist.",
    user_message: "Your email domain is not allowed to sign in.",
  },
  "auth.login.user_inactive": {
    status: 403,
    message: "The account is deactivated.",
    user_message: "Your account is deactivated. Contact an administrator.",
  },
  "auth.login.bad_credentials": {
    status: 401,
    message: "The email or password is wrong.",
    user_message: "The email or password is wrong.",
  },
  "auth.login.locked": {
    status: 403,
    message: "The account is locked after repeated failures until {locked_until}.",
    user_message: "Too many failed attempts. Try again later.",
  },
  "auth.password.change_required": {
    status: 403,
    message: "A password change is pending; change it at /settings/password before anything else.",
    user_message: "You must change your password first.",
  },
  "auth.password.policy": {
    status: 400,
    message: "The password must be between {min} and {max} characters.",
    user_message: "Choose a password between 12 and 128 characters.",
  },
  "auth.login.oidc_error": {
    status: 500,
    message: "The identity provider answered with an error: {reason}.",
    user_message: "Sign-in with your identity provider failed.",
  },
  "auth.session.expired": {
    status: 401,
    message: "The session token has expired.",
    user_message: "Your session has expired. Sign in again.",
  },
  "auth.session.invalid": {
    status: 401,
    message: "The session token is malformed or its signature does not verify.",
    user_message: "Your session is not valid. Sign in again.",
  },
  "auth.session.required": {
    status: 403,
    message: "This operation needs a browser session; API keys are refused here.",
    user_message: "Sign in through the browser to do this.",
  },
  "auth.api_key.missing": {
    status: 401,
    message: "No credential was presented: send a session cookie or the SVC-API-Key header.",
    user_message: "Sign in or present an API key.",
  },
  "auth.api_key.invalid": {
    status: 401,
    message: "The API key is unknown, revoked, malformed or its owner is inactive.",
    user_message: "The API key is not valid.",
  },
  "auth.api_key.expired": {
    status: 401,
    message: "The API key expired at {expires_at}.",
    user_message: "The API key has expired.",
  },
  "auth.api_key.not_found": {
    status: 404,
    message: "No API key {key_id} is visible to the caller.",
    user_message: "The API key does not exist.",
  },
  "auth.scope.insufficient": {
    status: 403,
    message: "The credential lacks the scope {required} (held: {held}).",
    user_message: "Your key does not allow this.",
  },
  "auth.role_required": {
    status: 403,
    message: "This operation needs the role {required} in the workspace (held: {held}).",
    user_message: "You do not have the role needed for this.",
  },
  "auth.key_issuer_role_lost": {
    status: 403,
    message: "The key's issuer no longer holds {required} in the pinned workspace.",
    user_message: "The key's owner lost the rights this key relied on.",
  },
  "auth.key_scope_unavailable": {
    status: 400,
    message: "The admin scope cannot be held by an API key.",
    user_message: "Keys cannot carry the admin scope.",
  },
  "auth.key_workspace_inactive": {
    status: 404,
    message: "The key's pinned workspace is deactivated.",
    user_message: "The key's workspace is not available.",
  },
  "auth.csrf.invalid": {
    status: 403,
    message:
      "The CSRF token is {reason}: send the svc_csrf cookie value in SVC-CSRF-Token or _csrf.",
    user_message: "Your page is out of date. Reload and try again.",
  },
  "auth.metrics.token_invalid": {
    status: 401,
    message:
      "The metrics bearer token is {reason}: send Authorization: Bearer with service.metrics.token.",
    user_message: "The metrics token is not valid.",
  },
  "auth.promotion.key_invalid": {
    status: 401,
    message: "The promotion key is missing, unknown, revoked, expired or not a server key.",
    user_message: "The promotion key is not valid.",
  },
  "auth.user.email_taken": {
    status: 409,
    message: "A user with this email already exists.",
    user_message: "That email is already in use.",
  },
  "auth.user.not_found": {
    status: 404,
    message: "No user has the id {user_id}.",
    user_message: "The user does not exist.",
  },
} as const satisfies Record<string, CatalogueEntry>;
