/** Published endpoints under /api/x. */
import type { CatalogueEntry } from "./entry.ts";

export const endpointErrors = {
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
    message:
      "Node {node_id} of pipeline {pipeline_id} version {pipeline_version} is not side-effect-free: {reason}.",
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
  "endpoint.promotion.key_missing": {
    status: 409,
    message:
      "The target workspace has no live endpoint-kind key named {key_name} (bound at {path}); nothing was pushed.",
    user_message: "A key the endpoint is bound to is missing on the target.",
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
} as const satisfies Record<string, CatalogueEntry>;
