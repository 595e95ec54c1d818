-- Access core (spec 1): workspaces, memberships, invitations, API keys, the audit log, and the
-- user's last-used workspace.
CREATE TABLE workspaces (
  id             UUID PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE,
  display_name   TEXT NOT NULL,
  is_personal    BOOLEAN NOT NULL DEFAULT FALSE,
  created_at     TIMESTAMPTZ NOT NULL,
  updated_at     TIMESTAMPTZ NOT NULL,
  deactivated_at TIMESTAMPTZ,
  deleted_at     TIMESTAMPTZ
);

CREATE TABLE memberships (
  user_id      UUID NOT NULL REFERENCES users (id),
  workspace_id UUID NOT NULL REFERENCES workspaces (id),
  author       BOOLEAN NOT NULL DEFAULT FALSE,
  promoter     BOOLEAN NOT NULL DEFAULT FALSE,
  admin        BOOLEAN NOT NULL DEFAULT FALSE,
  joined_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (user_id, workspace_id),
  CHECK (NOT admin OR author)
);
CREATE INDEX memberships_workspace ON memberships (workspace_id);

CREATE TABLE invitations (
  workspace_id UUID NOT NULL REFERENCES workspaces (id),
  email        TEXT NOT NULL CHECK (email = lower(email)),
  author       BOOLEAN NOT NULL DEFAULT FALSE,
  promoter     BOOLEAN NOT NULL DEFAULT FALSE,
  admin        BOOLEAN NOT NULL DEFAULT FALSE,
  invited_by   UUID NOT NULL REFERENCES users (id),
  invited_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (workspace_id, email),
  CHECK (NOT admin OR author)
);
CREATE INDEX invitations_email ON invitations (email);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  user_id      UUID NOT NULL REFERENCES users (id),
  workspace_id UUID NOT NULL REFERENCES workspaces (id),
  name         TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('user', 'endpoint', 'server')),
  scopes       TEXT NOT NULL,
  bindings     TEXT NOT NULL,
  key_hash     TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL,
  expires_at   TIMESTAMPTZ,
  last_used_at TIMESTAMPTZ,
  last_used_ip TEXT,
  is_revoked   BOOLEAN NOT NULL DEFAULT FALSE,
  revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

CREATE TABLE audit_log (
  id           UUID PRIMARY KEY,
  timestamp    TIMESTAMPTZ NOT NULL,
  event        TEXT NOT NULL,
  user_id      UUID,
  provider     TEXT,
  workspace_id UUID,
  source_ip    TEXT,
  user_agent   TEXT,
  details      TEXT NOT NULL
);
CREATE INDEX audit_log_time ON audit_log (timestamp);
CREATE INDEX audit_log_workspace_time ON audit_log (workspace_id, timestamp);
CREATE INDEX audit_log_event_time ON audit_log (event, timestamp);

ALTER TABLE users ADD COLUMN last_workspace_id UUID REFERENCES workspaces (id);
