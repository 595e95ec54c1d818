-- Versioned entities (spec 2 §2.2, §2.3, §3.1): pipelines and templates share one lifecycle, so
-- both have an index row (what lists and folders read) and version rows (the immutable history).
-- Numbers are identities: (entity, version) is the key and is never rewritten. At most one DRAFT
-- per entity. A version row's stamps follow its status: released_at is set unless DRAFT (a
-- discarded version keeps its original release stamps), discarded_at only while DISCARDED.
-- current_version references a version row of the same entity, so the pointer never dangles.
CREATE TABLE pipelines (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL REFERENCES workspaces (id),
  name            TEXT NOT NULL,
  display_name    TEXT,
  description     TEXT,
  current_version INTEGER,
  owner_id        TEXT NOT NULL REFERENCES users (id),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  UNIQUE (workspace_id, name),
  FOREIGN KEY (id, current_version) REFERENCES pipeline_versions (pipeline_id, version)
);
CREATE INDEX pipelines_owner ON pipelines (owner_id);

CREATE TABLE pipeline_versions (
  pipeline_id  TEXT NOT NULL REFERENCES pipelines (id),
  version      INTEGER NOT NULL CHECK (version >= 1),
  status       TEXT NOT NULL CHECK (status IN ('DRAFT', 'RELEASED', 'DISCARDED')),
  body         TEXT NOT NULL,
  body_hash    TEXT NOT NULL,
  created_by   TEXT NOT NULL REFERENCES users (id),
  created_at   TEXT NOT NULL,
  updated_by   TEXT NOT NULL REFERENCES users (id),
  updated_at   TEXT NOT NULL,
  released_by  TEXT REFERENCES users (id),
  released_at  TEXT,
  discarded_by TEXT REFERENCES users (id),
  discarded_at TEXT,
  PRIMARY KEY (pipeline_id, version),
  CHECK ((status = 'DRAFT') = (released_at IS NULL)),
  CHECK ((status = 'DISCARDED') = (discarded_at IS NOT NULL))
);
CREATE UNIQUE INDEX pipeline_versions_one_draft ON pipeline_versions (pipeline_id)
  WHERE status = 'DRAFT';

CREATE TABLE templates (
  id              TEXT PRIMARY KEY,
  workspace_id    TEXT NOT NULL REFERENCES workspaces (id),
  name            TEXT NOT NULL,
  type            TEXT NOT NULL CHECK (type IN ('sql', 'html')),
  dialect         TEXT,
  display_name    TEXT NOT NULL,
  description     TEXT,
  current_version INTEGER,
  owner_id        TEXT NOT NULL REFERENCES users (id),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  UNIQUE (workspace_id, name),
  CHECK ((type = 'sql') = (dialect IS NOT NULL)),
  FOREIGN KEY (id, current_version) REFERENCES template_versions (template_id, version)
);
CREATE INDEX templates_owner ON templates (owner_id);

CREATE TABLE template_versions (
  template_id  TEXT NOT NULL REFERENCES templates (id),
  version      INTEGER NOT NULL CHECK (version >= 1),
  status       TEXT NOT NULL CHECK (status IN ('DRAFT', 'RELEASED', 'DISCARDED')),
  body         TEXT NOT NULL,
  body_hash    TEXT NOT NULL,
  created_by   TEXT NOT NULL REFERENCES users (id),
  created_at   TEXT NOT NULL,
  updated_by   TEXT NOT NULL REFERENCES users (id),
  updated_at   TEXT NOT NULL,
  released_by  TEXT REFERENCES users (id),
  released_at  TEXT,
  discarded_by TEXT REFERENCES users (id),
  discarded_at TEXT,
  PRIMARY KEY (template_id, version),
  CHECK ((status = 'DRAFT') = (released_at IS NULL)),
  CHECK ((status = 'DISCARDED') = (discarded_at IS NOT NULL))
);
CREATE UNIQUE INDEX template_versions_one_draft ON template_versions (template_id)
  WHERE status = 'DRAFT';
