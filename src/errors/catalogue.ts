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
  "pipeline.execution.parameter_required": {
    status: 400,
    message: "Parameter '{parameter}' is required and has no value.",
    user_message: "A required input is missing.",
  },
  "pipeline.validation.name_invalid": {
    status: 400,
    message:
      "Pipeline name {name} breaks the grammar ({reason}): 2 to 10 segments of [a-z0-9][a-z0-9_.-]{0,63} joined by '/', at most 200 characters.",
    user_message: "That pipeline name is not valid. Use a folder path like team/report.",
  },
  "pipeline.validation.node_invalid": {
    status: 400,
    message: "Node {node_id}, field '{field}': {reason}.",
    user_message: "A step of the pipeline is not valid.",
  },
  "pipeline.validation.graph_invalid": {
    status: 400,
    message: "The pipeline graph is not valid: {reason}.",
    user_message: "The steps of the pipeline do not fit together.",
  },
  "pipeline.validation.cycle_detected": {
    status: 400,
    message: "The node dependencies form a cycle: {cycle_path}.",
    user_message: "The steps of the pipeline depend on each other in a circle.",
  },
  "pipeline.calculator.invalid_input": {
    status: 400,
    message: "Calculator {calculator}, input '{input}': {reason}.",
    user_message: "A derived input could not be computed.",
  },
  "pipeline.not_found": {
    status: 404,
    message: "Pipeline {pipeline_id} not found: {reason}.",
    user_message: "The pipeline does not exist.",
  },
  "pipeline.execution.not_found": {
    status: 404,
    message: "Pipeline {pipeline_id} has no version {version}.",
    user_message: "That pipeline version does not exist.",
  },
  "pipeline.validation.duplicate_name": {
    status: 409,
    message: "The pipeline name {name} is taken in this workspace.",
    user_message: "That pipeline name is taken.",
  },
  "pipeline.authoring.disabled": {
    status: 403,
    message:
      "Authoring is disabled on this deployment (service.deployment.authoring-enabled is false); {operation} is refused. Content arrives by promotion.",
    user_message: "Editing is disabled on this deployment.",
  },
  "pipeline.version.conflict": {
    status: 409,
    message:
      "If-Match {if_match} is stale: the current body hash of pipeline {pipeline_id} is {current_hash} (version {current_version}, {current_status}, by {author}).",
    user_message: "Someone else changed this pipeline. Reload and try again.",
  },
  "pipeline.version.not_draft": {
    status: 409,
    message: "Pipeline {pipeline_id} has no draft to {operation}.",
    user_message: "There is no draft to act on.",
  },
  "pipeline.version.not_released": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} is {status}; only a RELEASED version can be discarded.",
    user_message: "Only a released version can be discarded.",
  },
  "pipeline.version.not_discarded": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} is {status}; only a DISCARDED version can be restored.",
    user_message: "Only a discarded version can be restored.",
  },
  "pipeline.version.not_eligible": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} is {status} and cannot be the current version: {reason}.",
    user_message: "That version cannot be made current.",
  },
  "pipeline.version.pinned": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} is pinned by live parent versions: {pinned_by_summary}.",
    user_message: "Another pipeline uses this version.",
  },
  "pipeline.version.last_release": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} is {status}; released versions are kept, only a draft can be purged.",
    user_message: "Released versions cannot be deleted.",
  },
  "template.not_found": {
    status: 404,
    message: "Template {template_id} not found: {reason}.",
    user_message: "The template does not exist.",
  },
  "template.in_use": {
    status: 409,
    message:
      "Template {template_id} version {version} is pinned by stored pipeline versions: {pinned_by_summary}.",
    user_message: "A pipeline uses this template version.",
  },
  "template.validation.duplicate_name": {
    status: 409,
    message: "The template id {name} is taken in this workspace.",
    user_message: "That template id is taken.",
  },
  "template.version.conflict": {
    status: 409,
    message:
      "If-Match {if_match} is stale: the current body hash of template {template_id} is {current_hash} (version {current_version}, {current_status}, by {author}).",
    user_message: "Someone else changed this template. Reload and try again.",
  },
  "template.version.not_draft": {
    status: 409,
    message: "Template {template_id} has no draft to {operation}.",
    user_message: "There is no draft to act on.",
  },
  "template.version.not_released": {
    status: 409,
    message:
      "Version {version} of template {template_id} is {status}; only a RELEASED version can be discarded.",
    user_message: "Only a released version can be discarded.",
  },
  "template.version.not_discarded": {
    status: 409,
    message:
      "Version {version} of template {template_id} is {status}; only a DISCARDED version can be restored.",
    user_message: "Only a discarded version can be restored.",
  },
  "template.version.not_eligible": {
    status: 409,
    message:
      "Version {version} of template {template_id} is {status} and cannot be the current version: {reason}.",
    user_message: "That version cannot be made current.",
  },
  "template.version.last_release": {
    status: 409,
    message:
      "Version {version} of template {template_id} is {status}; released versions are kept, only a draft can be purged.",
    user_message: "Released versions cannot be deleted.",
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
  "endpoint.not_found": {
    status: 404,
    message: "No published endpoint answers {path}.",
    user_message: "The endpoint does not exist.",
  },
  "endpoint.validation.path_invalid": {
    status: 400,
    message: "The endpoint path {path} is not valid: {reason}.",
    user_message: "The endpoint path is not valid.",
  },
  "endpoint.path_variable_unknown": {
    status: 400,
    message: "Path variable {variable} is not a declared parameter of the pipeline's release.",
    user_message: "A path variable does not name a pipeline parameter.",
  },
  "endpoint.path_conflict": {
    status: 409,
    message: "The path {path_pattern} can match the same URLs as {conflicts_with}.",
    user_message: "Another endpoint already answers some of these URLs.",
  },
  "endpoint.pipeline_not_released": {
    status: 409,
    message: "Pipeline {pipeline_id} has no released version to publish.",
    user_message: "Release the pipeline before publishing it.",
  },
  "endpoint.pipeline_not_readonly": {
    status: 409,
    message: "Node {node_id} of pipeline {pipeline_id} version {pipeline_version} is not " +
      "side-effect-free: {reason}.",
    user_message: "Only pipelines that only read can be published.",
  },
  "endpoint.unavailable": {
    status: 503,
    message: "The endpoint {path_pattern} cannot serve: {reason}.",
    user_message: "The endpoint is temporarily unavailable.",
  },
  "endpoint.key_not_bound": {
    status: 403,
    message: "The key is not bound to {node}, the endpoint tree node that decides access.",
    user_message: "This key may not call this endpoint.",
  },
  "endpoint.key_not_found": {
    status: 404,
    message: "You own no live endpoint-kind key named {key_name}.",
    user_message: "The key does not exist.",
  },
  "endpoint.key_name_ambiguous": {
    status: 409,
    message: "You own {count} live endpoint-kind keys named {key_name}; rename or revoke one.",
    user_message: "More than one of your keys has this name.",
  },
  "endpoint.binding_not_found": {
    status: 404,
    message: "Key {key_name} is not bound to {path}.",
    user_message: "The binding does not exist.",
  },
  "endpoint.request.invalid": {
    status: 400,
    message: "The request has {count} defect(s); see details.errors.",
    user_message: "The request parameters are not valid.",
  },
  "endpoint.request.parameter_unknown": {
    status: 400,
    message: "Query parameter {parameter} is not a parameter of this endpoint.",
    user_message: "The request names an unknown parameter.",
  },
  "endpoint.request.parameter_repeated": {
    status: 400,
    message: "Parameter {parameter} is given more than once.",
    user_message: "A parameter is given more than once.",
  },
  "endpoint.request.value_too_large": {
    status: 400,
    message: "The value of {parameter} is over {limit_bytes} bytes.",
    user_message: "A parameter value is too large.",
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
  "template.render.syntax_error": {
    status: 400,
    message: "Template {template} has a syntax error at line {line}, column {column}: {message}.",
    user_message: "The template has a syntax error.",
  },
  "template.render.parameter_interpolation": {
    status: 400,
    message:
      "The value of {path} would be written into the SQL text at line {line}, column {column} of " +
      "template {template}; refer to a parameter as the placeholder :name and test it only in " +
      "conditions and loops.",
    user_message: "The template writes a parameter value into the SQL; use a :name placeholder.",
  },
  "template.render.unknown_import": {
    status: 400,
    message:
      "'{name}' at line {line}, column {column} of template {template} is not one of its import " +
      "aliases ({known}); render and include take an alias, never a path.",
    user_message: "The template renders something that is not one of its imports.",
  },
  "template.render.limit_exceeded": {
    status: 400,
    message: "Rendering stopped: the {limit} limit of {max} was exceeded.",
    user_message: "The template is too large or too slow to render.",
  },
  "template.render.failed": {
    status: 400,
    message: "Rendering failed at line {line}, column {column} of template {template}: {message}.",
    user_message: "The template could not be rendered.",
  },
  // --- templates: validation, release, render and library import (issue 6) ---
  "template.validation.id_invalid": {
    status: 400,
    message:
      "Template id {id} is not a folder path ({reason}: {detail}); use 2 to 10 segments of [a-z0-9][a-z0-9_.-]{0,63} joined by '/', at most 200 characters.",
    user_message: "The template id must be a folder path such as sales/orders_by_day.",
  },
  "template.validation.dialect_invalid": {
    status: 400,
    message:
      "Dialect {dialect} is not valid for template {template_id}: {reason} (established dialect: {established_dialect}).",
    user_message: "The template's SQL dialect is not valid.",
  },
  "template.validation.type_immutable": {
    status: 400,
    message:
      "Template {template_id} is of type {established_type}; its type is fixed at creation and cannot become {type}.",
    user_message: "A template's type cannot be changed.",
  },
  "template.validation.import_invalid": {
    status: 400,
    message: "Import {field} ({import_id} version {import_version}) is not usable: {reason}.",
    user_message: "One of the template's imports is not valid.",
  },
  "template.release.import_not_released": {
    status: 409,
    message:
      "Template {template_id} imports {import_id} version {import_version}, which is {import_status}; release the imported version first.",
    user_message: "Release the templates this template imports first.",
  },
  "template.render.type_unsupported": {
    status: 400,
    message:
      "Template {template_id} version {version} is an {type} template; only sql templates render to SQL.",
    user_message: "Only SQL templates can be rendered here.",
  },
  "template.import.draft_pending": {
    status: 409,
    message:
      "Template {template_id} has a draft (version {version}) by {author}; the library import would overwrite it. Release or discard the draft first.",
    user_message: "A template in the import has unreleased changes.",
  },
  "datasource.not_found": {
    status: 404,
    message: "No datasource named {datasource} is visible in this workspace.",
    user_message: "The datasource does not exist or you cannot reach it.",
  },
  "datasource.table_not_found": {
    status: 404,
    message: "No table {table} in schema {schema} of the datasource; nearest name: {hint}.",
    user_message: "The table does not exist.",
  },
  "datasource.probe.not_read_only": {
    status: 400,
    message:
      "The probe runs one read statement only (SELECT, WITH or VALUES; no write, no second statement); refused: {reason}.",
    user_message: "Only a single read-only query can be run here.",
  },
  "datasource.probe.timeout": {
    status: 504,
    message: "The probe statement was cancelled after {timeout_ms} ms.",
    user_message: "The query took too long and was stopped. Narrow it or add filters.",
  },
  "datasource.probe.statement_failed": {
    status: 400,
    message: "The {dialect} statement failed ({error_class}): {reason}.",
    user_message: "The query failed.",
  },
  "datasource.in_use": {
    status: 409,
    message:
      "The datasource {datasource_name} is referenced by pipelines: {referencing_pipelines}.",
    user_message: "Pipelines still use this datasource.",
  },
  "datasource.validation.duplicate_name": {
    status: 409,
    message: "The datasource name {name} is taken.",
    user_message: "That datasource name is taken.",
  },
  "datasource.validation.properties_invalid": {
    status: 400,
    message: "The datasource definition is invalid at {field}: {reason}.",
    user_message: "The datasource settings are not valid.",
  },
  "datasource.validation.password_missing": {
    status: 400,
    message: "The credential kind {kind} needs a secret.",
    user_message: "Enter the password or secret.",
  },
  "datasource.validation.workspace_forbidden": {
    status: 400,
    message: "The caller may not bind or change this datasource: {reason}.",
    user_message: "You cannot change datasources here.",
  },
  "datasource.validation.lake_dialect_required": {
    status: 400,
    message: "Lake tables exist only on LAKE datasources; {datasource} is {dialect}.",
    user_message: "This datasource has no lake tables.",
  },
  "datasource.validation.lake_namespace_invalid": {
    status: 400,
    message: "The lake namespace is invalid: {reason}.",
    user_message: "The namespace is not valid.",
  },
  "datasource.validation.lake_name_invalid": {
    status: 400,
    message: "The lake table name is invalid: {reason}.",
    user_message: "The table name is not valid.",
  },
  "datasource.validation.lake_format_invalid": {
    status: 400,
    message: "The lake table format must be parquet or iceberg, not {format}.",
    user_message: "The table format is not supported.",
  },
  "datasource.validation.lake_location_invalid": {
    status: 400,
    message: "The lake table location is invalid: {reason}.",
    user_message: "The table location is not valid.",
  },
  "datasource.validation.lake_manifest_url_forbidden": {
    status: 400,
    message: "The manifest URL is not on the datasource's bucket or endpoint: {reason}.",
    user_message: "The manifest cannot be fetched from there.",
  },
  "datasource.lake_table_duplicate": {
    status: 409,
    message: "The lake table {namespace}.{name} is already registered.",
    user_message: "That lake table is already registered.",
  },
  "datasource.lake_table_not_found": {
    status: 404,
    message: "No lake table {namespace}.{name} is registered.",
    user_message: "The lake table does not exist.",
  },
  "pipeline.execution.datasource_unreachable": {
    status: 502,
    message: "The datasource could not be reached ({error_class}): {reason}.",
    user_message: "The datasource could not be reached.",
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
  "idempotency.key_reused_for_different_request": {
    status: 409,
    message: "Idempotency-Key '{key}' was already used for a different request.",
    user_message: "This request key was already used for something else. Use a new key.",
  },
  "result.execution_not_found": {
    status: 404,
    message: "No execution {execution_id} is visible to the caller.",
    user_message: "That run does not exist.",
  },
  "result.execution_incomplete": {
    status: 409,
    message: "Execution {execution_id} is still running; its result is not ready.",
    user_message: "The run has not finished yet.",
  },
  "result.execution_failed": {
    status: 410,
    message: "Execution {execution_id} ended {status} and produced no result to read.",
    user_message: "The run did not produce a result.",
  },
  "result.expired": {
    status: 410,
    message: "The result or replay window of execution {execution_id} has elapsed.",
    user_message: "This result has expired. Run the pipeline again.",
  },
  "result.format_unsupported": {
    status: 400,
    message: "Result format {format} is not served; supported: {supported}.",
    user_message: "That download format is not available.",
  },
  "result.too_large": {
    status: 500,
    message: "The caller result exceeded service.result.max-size-bytes ({max_size_bytes} bytes).",
    user_message: "The result is too large. Narrow the query or add filters.",
  },
  "result.storage_unavailable": {
    status: 500,
    message: "The result store could not take the result of execution {execution_id}.",
    user_message: "The result could not be stored. Try again shortly.",
  },
  "datasource.fact_not_found": {
    status: 404,
    message: "No live learned fact {fact_id} is visible to this workspace.",
    user_message: "The fact does not exist.",
  },
  "docs.not_found": {
    status: 404,
    message: "No documentation page {id}; docs_list names the pages.",
    user_message: "The documentation page does not exist.",
  },
  "pipeline.node.datasource_connection_failed": {
    status: 502,
    message: "Node {node_id} could not connect to datasource {datasource} ({error_class}).",
    user_message: "A datasource the pipeline reads could not be reached.",
  },
  "pipeline.node.statement_failed": {
    status: 502,
    message: "Node {node_id}: the {dialect} statement failed ({error_class}): {reason}.",
    user_message: "A statement of the pipeline failed.",
  },
  "pipeline.node.readonly_datasource": {
    status: 403,
    message: "Node {node_id} writes to datasource {datasource}, which is read-only.",
    user_message: "The pipeline writes to a read-only datasource.",
  },
  "pipeline.node.staging_failed": {
    status: 500,
    message: "Node {node_id}: the staging database refused the data ({reason}).",
    user_message: "The pipeline could not stage intermediate data.",
  },
  "pipeline.node.child_failed": {
    status: 502,
    message: "Node {node_id}: child execution {child_execution_id} failed with {child_code}.",
    user_message: "A pipeline this one runs failed.",
  },
  "pipeline.execution.depth_exceeded": {
    status: 400,
    message: "Child pipelines nest deeper than {max_depth} levels at node {node_id}.",
    user_message: "Pipelines call each other too deeply.",
  },
  "pipeline.execution.not_running": {
    status: 409,
    message: "Execution {execution_id} is already {status}.",
    user_message: "The execution has already finished.",
  },
  "pipeline.execution.concurrency_limit": {
    status: 429,
    message: "User already runs {running} executions; the limit is {limit}.",
    user_message: "Too many runs at once. Wait for one to finish, then retry.",
  },
  "pipeline.execution.stream_limit": {
    status: 429,
    message: "User already holds {open} execution streams; the limit is {limit}.",
    user_message: "Too many open run streams. Close one, then retry.",
  },
  "pipeline.release.template_not_released": {
    status: 409,
    message:
      "Template {template_id} version {template_version} pinned by the pipeline is {template_status}; release it first or pass release_pinned_templates=true.",
    user_message: "A template this pipeline uses is not released.",
  },
  "pipeline.check.failed": {
    status: 409,
    message:
      "Release checks did not pass; fix them or release with override_checks_reason (at least 10 characters).",
    user_message: "A release check failed.",
  },
  "pipeline.import.hash_mismatch": {
    status: 409,
    message: "The payload's body_hash {body_hash} is not the hash of its body ({computed_hash}).",
    user_message: "The imported pipeline does not match its hash.",
  },
  "pipeline.import.version_conflict": {
    status: 409,
    message: "Version {version} of {name} already exists here as {status} with another body.",
    user_message: "That version already exists with different content.",
  },
  "pipeline.import.missing_datasource": {
    status: 409,
    message: "The pipeline names datasource {datasource}, which this workspace cannot see.",
    user_message: "A datasource the pipeline needs is missing.",
  },
  "pipeline.import.missing_template": {
    status: 409,
    message: "The pipeline pins template {template_id} version {template_version}, absent here.",
    user_message: "A template the pipeline needs is missing.",
  },
  "pipeline.promotion.not_released": {
    status: 409,
    message: "Pipeline {pipeline_id} has no released version to export.",
    user_message: "Release the pipeline first.",
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
