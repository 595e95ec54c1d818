/** Datasources, probes, lake tables and learned facts. */
import type { CatalogueEntry } from "./entry.ts";

export const datasourceErrors = {
  "datasource.not_found": {
    status: 404,
    message: "No datasource named {datasource} is visible in this workspace.",
    user_message: "The datasource does not exist or you cannot reach it.",
  },
  "datasource.table_not_found": {
    status: 404,
    message: "No table {table} in schema {schema} of the datasource.",
    user_message: "The table does not exist.",
  },
  "datasource.probe.not_read_only": {
    status: 400,
    message:
      "The probe runs one read statement only (SELECT, WITH or VALUES; no write, no second statement); refused: {reason}.",
    user_message: "Only a single read-only query can be run here.",
  },
  "datasource.probe.value_too_large": {
    status: 400,
    message:
      "A value of {column} is larger than service.executor.max-cell-bytes ({max_cell_bytes} bytes); probe a shorter form of it.",
    user_message: "A value is too large to show. Select a substring or its length instead.",
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
  "datasource.fact_not_found": {
    status: 404,
    message: "No live learned fact {fact_id} is visible to this workspace.",
    user_message: "The fact does not exist.",
  },
} as const satisfies Record<string, CatalogueEntry>;
