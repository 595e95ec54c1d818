/** Templates: validation, lifecycle, rendering and library import. */
import type { CatalogueEntry } from "./entry.ts";

export const templateErrors = {
  "template.not_found": {
    status: 404,
    message: "Template {template_id} not found: {reason}.",
    user_message: "The template does not exist.",
  },
  "template.in_use": {
    status: 409,
    message: "Template {template_id} is pinned by stored pipeline versions: {pinned_by_summary}.",
    user_message: "A pipeline uses this template version.",
  },
  "template.validation.duplicate_name": {
    status: 409,
    message: "The template id {name} is taken in this workspace.",
    user_message: "That template id is taken.",
  },
  "template.version.conflict": {
    status: 409,
    message: "If-Match {if_match} is stale: template {template_id} now has {current}.",
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
  "template.render.syntax_error": {
    status: 400,
    message: "Syntax error at {at}: {message}.",
    user_message: "The template has a syntax error.",
  },
  "template.render.parameter_interpolation": {
    status: 400,
    message:
      "The value of {path} would be written into the SQL text at {at}; refer to a parameter as the placeholder :name and test it only in conditions and loops.",
    user_message: "The template writes a parameter value into the SQL; use a :name placeholder.",
  },
  "template.render.unknown_import": {
    status: 400,
    message:
      "'{name}' at {at} is not one of its import aliases ({known}); render and include take an alias, never a path.",
    user_message: "The template renders something that is not one of its imports.",
  },
  "template.render.limit_exceeded": {
    status: 400,
    message: "Rendering stopped: the {limit} limit of {max} was exceeded.",
    user_message: "The template is too large or too slow to render.",
  },
  "template.render.failed": {
    status: 400,
    message: "Rendering failed at {at}: {message}.",
    user_message: "The template could not be rendered.",
  },
  "template.validation.id_invalid": {
    status: 400,
    message:
      "Template id {id} is not a folder path ({reason}: {detail}); use 2 to 10 segments of [a-z0-9][a-z0-9_.-]{0,63} joined by '/', at most 200 characters.",
    user_message: "The template id must be a folder path such as sales/orders_by_day.",
  },
  "template.validation.dialect_invalid": {
    status: 400,
    message: "The template's dialect is not valid: {reason}.",
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
    message: "Import {field} is not usable: {reason}.",
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
} as const satisfies Record<string, CatalogueEntry>;
