/** Pipelines: validation, calculators, the version lifecycle, release checks, import and promotion. */
import type { CatalogueEntry } from "./entry.ts";

export const pipelineErrors = {
  "pipeline.validation.name_invalid": {
    status: 400,
    message:
      "Pipeline name {name} breaks the grammar ({reason}): 2 to 10 segments of [a-z0-9][a-z0-9_.-]{0,63} joined by '/', at most 200 characters.",
    user_message: "That pipeline name is not valid. Use a folder path like team/report.",
  },
  "pipeline.validation.malformed_json": {
    status: 400,
    message:
      "The pipeline JSON in '{field}' does not parse at line {line}, column {column}: {reason}.",
    user_message: "The pipeline JSON has a syntax error.",
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
  "pipeline.calculator.not_found": {
    status: 404,
    message: "No calculator {name}; calculators_list names them.",
    user_message: "That calculator does not exist.",
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
    message: "If-Match {if_match} is stale: pipeline {pipeline_id} now has {current}.",
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
  "pipeline.version.running": {
    status: 409,
    message:
      "Version {version} of pipeline {pipeline_id} has {running} running executions; a purge takes its executions, so cancel them or let them end first.",
    user_message: "This pipeline is still running. Cancel the run or let it end, then delete.",
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
  "pipeline.promotion.not_newer": {
    status: 409,
    message: "{name} is at version {target_version} on {target}; version {version} is not newer.",
    user_message: "The target already has this release or a newer one.",
  },
  "pipeline.promotion.missing_datasources": {
    status: 409,
    message: "The target workspace {workspace} has no datasource named {missing}.",
    user_message: "Register the datasources on the target first.",
  },
  "pipeline.promotion.target_is_authoring": {
    status: 409,
    message:
      "The target deployment {target} has authoring enabled; promotion goes only into a hardened deployment.",
    user_message: "The target is not a production (hardened) deployment.",
  },
  "pipeline.promotion.target_not_configured": {
    status: 409,
    message:
      "No promotion target is configured: set service.deployment.promotion.target-url and target-key.",
    user_message: "This deployment has no promotion target.",
  },
  "pipeline.promotion.target_unreachable": {
    status: 502,
    message: "The promotion target answered {status}: {reason}.",
    user_message: "The promotion target could not be reached.",
  },
} as const satisfies Record<string, CatalogueEntry>;
