/** The datasource vocabulary: rows as stored, and the shapes the front ends serve. */
import type { CredentialKind, Dialect } from "./connectors/mod.ts";
import type { Queryable } from "../store/mod.ts";
import type { LastTest } from "./views.ts";

/** What the front ends are served is the views' (views.ts). */
export type { DatasourceView, GrantView, LastTest, PoolEntry } from "./views.ts";

export { CREDENTIAL_KINDS, type CredentialKind, type Dialect, DIALECTS } from "./connectors/mod.ts";

/** Datasource names: one global namespace, lowercase, safe in a URL path segment. */
/** Nothing is written through a datasource flagged `readonly`, nor through a lake (read in place). */
export function isReadOnly(d: { dialect: string; readonly: boolean }): boolean {
  return d.readonly || d.dialect === "LAKE";
}

export const DATASOURCE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;
export const DISPLAY_NAME_MAX = 200;
export const JDBC_URL_MAX = 2048;
export const SECRET_MAX = 64 * 1024;
export const USERNAME_MAX = 256;
/** `introspection_include_schemas`: exact identifiers of letters, digits, `_`, `$`, `#`. */
export const SCHEMA_IDENTIFIER_RE = /^[a-z0-9_$#]{1,128}$/;
export const INCLUDE_SCHEMAS_MAX = 200;

/** What the caller sent as the credential, after parsing (create and update). */
export interface CredentialInput {
  kind: CredentialKind;
  username: string | null;
  /** Absent: keep the stored secret (update) or none was sent (create). */
  secret?: string;
  /** True when the request said nothing about the username (update keeps the stored one). */
  usernameOmitted: boolean;
}

/** Pool and driver properties as stored: the two reserved namespaces only. */
export interface DatasourceProperties {
  hikari?: Record<string, number>;
  jdbc?: Record<string, string | number | boolean>;
}

/** A datasource row as stored; the secret stays sealed. */
export interface DatasourceRecord {
  id: string;
  name: string;
  display_name: string;
  dialect: Dialect;
  jdbc_url: string;
  credential_kind: CredentialKind;
  username: string | null;
  /** `v<version>.<iv>.<ciphertext>` (see secrets.ts); null exactly for kind `none`. */
  secret_ciphertext: string | null;
  include_schemas: string[];
  properties: DatasourceProperties;
  is_global: boolean;
  workspace_id: string | null;
  /** The bound workspace's name, joined on read; null for a global datasource. */
  workspace_name: string | null;
  readonly: boolean;
  last_test: LastTest | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

/** Who reads: the workspace the request acts in (null: none) and whether a super admin. */
export interface DatasourceViewer {
  workspaceId: string | null;
  isSuperAdmin: boolean;
}

/** What a datasource write is, for the operation matrix: bound to a workspace or instance-wide. */
export type WriteTarget = "workspace" | "instance";

/** One stored pipeline version referencing a datasource (the details of a refused delete). */
export interface DatasourceReference {
  pipeline: string;
  node_id: string;
  pipeline_version: number;
  version_status: string;
}

/**
 * Finds the stored pipeline versions referencing a datasource, inside the delete's transaction;
 * the pipelines domain owns one, which services.ts passes to the datasource service.
 */
export type ReferenceFinder = (
  db: Queryable,
  datasourceName: string,
) => Promise<DatasourceReference[]>;

/** A credential ready for a driver; exists only between decryption and the connect call. */
export interface OpenCredential {
  kind: CredentialKind;
  username?: string;
  secret?: string;
}
