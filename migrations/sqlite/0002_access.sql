-- Access core (spec 1): workspaces, memberships, invitations, API keys, the audit log, and the
-- user's last-used workspace.
CREATE TABLE workspaces (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE,
  display_name   TEXT NOT NULL,
  is_personal    INTEGER NOT NULL DEFAULT 0 CHECK (is_personal IN (0, 1)),
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  deactivated_at TEXT,
  deleted_at     TEXT
);

CREATE TABLE memberships (
  user_id      TEXT NOT NULL REFERENCES users (id),
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  author       INTEGER NOT NULL DEFAULT 0 CHECK (author IN (0, 1)),
  promoter     INTEGER NOT NULL DEFAULT 0 CHECK (promoter IN (0, 1)),
  admin        INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
  joined_at    TEXT NOT NULL,
  PRIMARY KEY (user_id, workspace_id),
  CHECK (admin = 0 OR author = 1)
);
CREATE INDEX memberships_workspace ON memberships (workspace_id);

CREATE TABLE invitations (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  email        TEXT NOT NULL CHECK (email = lower(email)),
  author       INTEGER NOT NULL DEFAULT 0 CHECK (author IN (0, 1)),
  promoter     INTEGER NOT NULL DEFAULT 0 CHECK (promoter IN (0, 1)),
  admin        INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
  invited_by   TEXT NOT NULL REFERENCES users (id),
  invited_at   TEXT NOT NULL,
  PRIMARY KEY (workspace_id, email),
  CHECK (admin = 0 OR author = 1)
);
CREATE INDEX invitations_email ON invitations (email);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users (id),
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  name         TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('user', 'endpoint', 'server')),
  scopes       TEXT NOT NULL,
  bindings     TEXT NOT NULL,
  key_hash     TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  expires_at   TEXT,
  last_used_at TEXT,
  last_used_ip TEXT,
  is_revoked   INTEGER NOT NULL DEFAULT 0 CHECK (is_revoked IN (0, 1)),
  revoked_at   TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);

CREATE TABLE audit_log (
  id           TEXT PRIMARY KEY,
  timestamp    TEXT NOT NULL,
  event        TEXT NOT NULL,
  user_id      TEXT,
  provider     TEXT,
  workspace_id TEXT,
  source_ip    TEXT,
  user_agent   TEXT,
  details      TEXT NOT NULL
);
CREATE INDEX audit_log_time ON audit_log (timestamp);
CREATE INDEX audit_log_workspace_time ON audit_log (workspace_id, timestamp);
CREATE INDEX audit_log_event_time ON audit_log (event, timestamp);

ALTER TABLE users ADD COLUMN last_workspace_id TEXT REFERENCES workspaces (id);
