-- Datasources (spec 3 §2.1): the registry, its encrypted credentials, and grants of global
-- datasources to workspaces. A row is either global (no workspace) or bound to one workspace.
CREATE TABLE datasources (
  id                 TEXT PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  display_name       TEXT NOT NULL,
  dialect            TEXT NOT NULL CHECK (dialect IN ('POSTGRES', 'MYSQL', 'SQLITE', 'DUCKDB', 'LAKE')),
  jdbc_url           TEXT NOT NULL,
  credential_kind    TEXT NOT NULL
                     CHECK (credential_kind IN ('password', 'token', 'private_key', 'service_account_json', 'none')),
  username           TEXT,
  secret_ciphertext  TEXT,
  secret_key_version INTEGER,
  include_schemas    TEXT NOT NULL,
  properties         TEXT NOT NULL,
  is_global          INTEGER NOT NULL DEFAULT 0 CHECK (is_global IN (0, 1)),
  workspace_id       TEXT REFERENCES workspaces (id),
  readonly           INTEGER NOT NULL DEFAULT 0 CHECK (readonly IN (0, 1)),
  last_test_at       TEXT,
  last_test_ok       INTEGER CHECK (last_test_ok IN (0, 1)),
  last_test_message  TEXT,
  created_by         TEXT NOT NULL REFERENCES users (id),
  updated_by         TEXT NOT NULL REFERENCES users (id),
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  CHECK ((is_global = 1 AND workspace_id IS NULL) OR (is_global = 0 AND workspace_id IS NOT NULL)),
  CHECK ((credential_kind = 'none') = (secret_ciphertext IS NULL))
);
CREATE INDEX datasources_workspace ON datasources (workspace_id);

CREATE TABLE datasource_grants (
  datasource_id TEXT NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
  workspace_id  TEXT NOT NULL REFERENCES workspaces (id),
  granted_by    TEXT NOT NULL REFERENCES users (id),
  granted_at    TEXT NOT NULL,
  PRIMARY KEY (datasource_id, workspace_id)
);
CREATE INDEX datasource_grants_workspace ON datasource_grants (workspace_id);
