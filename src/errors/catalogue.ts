/**
 * The error catalogue: every code the service answers, as data. A handler raises a code and its
 * details; status, messages and the documentation anchor come from here. `message` is technical
 * English and may name details as `{field}`; `user_message` is safe to show anyone.
 *
 * Later issues add their codes here, and only here.
 */
export interface CatalogueEntry {
  status: number;
  message: string;
  user_message: string;
}

export const catalogue = {
  "request.not_found": {
    status: 404,
    message: "No route matches {method} {path}.",
    user_message: "The requested resource does not exist.",
  },
  "request.method_not_allowed": {
    status: 405,
    message: "{method} is not allowed on {path}; allowed methods: {allowed}.",
    user_message: "This action is not available here.",
  },
  "request.malformed_json": {
    status: 400,
    message: "The request body is not valid JSON: {reason}.",
    user_message: "The request could not be read.",
  },
  "request.body_too_large": {
    status: 413,
    message: "The request body exceeds the limit of {limit_bytes} bytes.",
    user_message: "The request is too large.",
  },
  "request.unsupported_media_type": {
    status: 415,
    message: "The request body is {content_type}; this route reads {expected}.",
    user_message: "The request format is not supported.",
  },
  "request.not_acceptable": {
    status: 406,
    message: "This route answers {produces}; the Accept header did not allow it.",
    user_message: "The requested format is not available.",
  },
  "pipeline.execution.invalid_parameter_type": {
    status: 400,
    message: "Field '{field}' is invalid: {reason}.",
    user_message: "Some input was not valid.",
  },
  "service.unavailable": {
    status: 503,
    message: "The service is not ready: {reason}.",
    user_message: "The service is temporarily unavailable. Try again shortly.",
  },
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
  "endpoint.key_kind_refused": {
    status: 403,
    message: "This key kind cannot be used here: {reason}.",
    user_message: "This kind of key cannot be used here.",
  },
  "workspace.not_found": {
    status: 404,
    message: "No reachable workspace matches {workspace}.",
    user_message: "The workspace does not exist or you cannot reach it.",
  },
  "workspace.membership_required": {
    status: 403,
    message: "The caller has no workspace membership.",
    user_message: "You are not a member of any workspace yet.",
  },
  "workspace.header_forbidden": {
    status: 400,
    message:
      "The SVC-Workspace header cannot be used with an API key; the key's pinned workspace applies.",
    user_message: "Keys work only in their own workspace.",
  },
  "workspace.inactive": {
    status: 404,
    message: "The workspace {workspace} is deactivated.",
    user_message: "The workspace is deactivated.",
  },
  "workspace.last_admin": {
    status: 409,
    message: "The change would leave workspace {workspace} without an admin.",
    user_message: "A workspace needs at least one admin.",
  },
  "workspace.in_use": {
    status: 409,
    message: "The workspace still owns content: {summary}.",
    user_message: "Remove the workspace's content first.",
  },
  "workspace.invitation.not_found": {
    status: 404,
    message: "No pending invitation for {email} in this workspace.",
    user_message: "There is no such invitation.",
  },
  "workspace.validation.name_invalid": {
    status: 400,
    message: "The workspace name must match [a-z0-9_-]{1,63}: {reason}.",
    user_message: "The workspace name is not valid.",
  },
  "workspace.validation.duplicate_name": {
    status: 409,
    message: "The workspace name {name} is taken (deleted names stay reserved).",
    user_message: "That workspace name is taken.",
  },
  // Spec 3 §7, in spec order (other datasource codes go around these).
  "datasource.not_found": {
    status: 404,
    message: "No datasource {name} is visible in this workspace.",
    user_message: "The datasource does not exist.",
  },
  "datasource.validation.workspace_forbidden": {
    status: 400,
    message: "The datasource change is not allowed for this caller: {reason}.",
    user_message: "You cannot change this datasource.",
  },
  "datasource.validation.lake_dialect_required": {
    status: 400,
    message: "Lake tables exist only on LAKE datasources; {datasource} is {dialect}.",
    user_message: "Lake tables can only be registered on a lake datasource.",
  },
  "datasource.validation.lake_namespace_invalid": {
    status: 400,
    message:
      "The lake namespace must be 1 to 9 segments matching [a-z0-9][a-z0-9_-]{0,63} (array or dotted): {reason}.",
    user_message: "The lake namespace is not valid.",
  },
  "datasource.validation.lake_name_invalid": {
    status: 400,
    message: "The lake table name must be one segment matching [a-z0-9][a-z0-9_-]{0,63}: {reason}.",
    user_message: "The lake table name is not valid.",
  },
  "datasource.validation.lake_format_invalid": {
    status: 400,
    message: "The lake table format must be parquet or iceberg: {reason}.",
    user_message: "The lake table format is not supported.",
  },
  "datasource.validation.lake_location_invalid": {
    status: 400,
    message: "The lake location is not usable: {reason}.",
    user_message: "The lake table location is not valid.",
  },
  "datasource.validation.lake_manifest_url_forbidden": {
    status: 400,
    message: "The manifest URL may not be fetched: {reason}.",
    user_message: "The manifest URL is not allowed for this datasource.",
  },
  "datasource.lake_table_duplicate": {
    status: 409,
    message: "The lake table {namespace}.{name} is already registered on {datasource}.",
    user_message: "That lake table is already registered.",
  },
  "datasource.lake_table_not_found": {
    status: 404,
    message: "No lake table {namespace}.{name} is registered on {datasource}.",
    user_message: "The lake table is not registered.",
  },
  "pipeline.execution.datasource_unreachable": {
    status: 502,
    message: "The datasource {datasource} cannot be reached: {reason}.",
    user_message: "The datasource could not be reached.",
  },
  "pipeline.execution.parameter_required": {
    status: 400,
    message: "The parameter {parameter} is required.",
    user_message: "A required value is missing.",
  },
  // Not in spec 3 §7 (retiring a fact that does not exist or is not visible).
  "datasource.fact_not_found": {
    status: 404,
    message: "No live learned fact {fact_id} is visible to this workspace.",
    user_message: "The fact does not exist.",
  },
  "rate_limit.exceeded": {
    status: 429,
    message: "The request budget is exhausted; retry after {retry_after} seconds.",
    user_message: "Too many requests. Slow down and retry shortly.",
  },
  "rate_limit.unavailable": {
    status: 429,
    message: "The rate limiter cannot decide right now; retry shortly.",
    user_message: "The service is busy. Retry shortly.",
  },
  "internal.unexpected": {
    status: 500,
    message: "An unexpected error occurred. Quote the correlation id when reporting it.",
    user_message: "Something went wrong on our side.",
  },
} as const satisfies Record<string, CatalogueEntry>;

/** Every code the service can answer. */
export type ErrorCode = keyof typeof catalogue;

/** Fills `{name}` placeholders from details; an absent detail renders as `?`. */
export function renderMessage(template: string, details: Record<string, unknown>): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, key: string) => {
    const value = details[key];
    if (value === undefined || value === null) return "?";
    return Array.isArray(value) ? value.join(", ") : String(value);
  });
}
