-- Datasources (spec 3 §2.1): the registry, its encrypted credentials, and grants of global
-- datasources to workspaces. A row is either global (no workspace) or bound to one workspace.
CREATE TABLE datasources (
  id                 UUID PRIMARY KEY,
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
  is_global          BOOLEAN NOT NULL DEFAULT FALSE,
  workspace_id       UUID REFERENCES workspaces (id),
  readonly           BOOLEAN NOT NULL DEFAULT FALSE,
  last_test_at       TIMESTAMPTZ,
  last_test_ok       BOOLEAN,
  last_test_message  TEXT,
  created_by         UUID NOT NULL REFERENCES users (id),
  updated_by         UUID NOT NULL REFERENCES users (id),
  created_at         TIMESTAMPTZ NOT NULL,
  updated_at         TIMESTAMPTZ NOT NULL,
  CHECK ((is_global AND workspace_id IS NULL) OR (NOT is_global AND workspace_id IS NOT NULL)),
  CHECK ((credential_kind = 'none') = (secret_ciphertext IS NULL))
);
CREATE INDEX datasources_workspace ON datasources (workspace_id);

CREATE TABLE datasource_grants (
  datasource_id UUID NOT NULL REFERENCES datasources (id) ON DELETE CASCADE,
  workspace_id  UUID NOT NULL REFERENCES workspaces (id),
  granted_by    UUID NOT NULL REFERENCES users (id),
  granted_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (datasource_id, workspace_id)
);
CREATE INDEX datasource_grants_workspace ON datasource_grants (workspace_id);
