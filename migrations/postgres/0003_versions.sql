-- Versioned entities (spec 2 §2.2, §2.3, §3.1): pipelines and templates share one lifecycle, so
-- both have an index row (what lists and folders read) and version rows (the immutable history).
-- Numbers are identities: (entity, version) is the key and is never rewritten. At most one DRAFT
-- per entity. A version row's stamps follow its status: released_at is set unless DRAFT (a
-- discarded version keeps its original release stamps), discarded_at only while DISCARDED.
-- current_version references a version row of the same entity, so the pointer never dangles.
CREATE TABLE pipelines (
  id              UUID PRIMARY KEY,
  workspace_id    UUID NOT NULL REFERENCES workspaces (id),
  name            TEXT NOT NULL,
  display_name    TEXT,
  description     TEXT,
  current_version INTEGER,
  owner_id        UUID NOT NULL REFERENCES users (id),
  created_at      TIMESTAMPTZ NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL,
  UNIQUE (workspace_id, name)
);
CREATE INDEX pipelines_owner ON pipelines (owner_id);

CREATE TABLE pipeline_versions (
  pipeline_id  UUID NOT NULL REFERENCES pipelines (id),
  version      INTEGER NOT NULL CHECK (version >= 1),
  status       TEXT NOT NULL CHECK (status IN ('DRAFT', 'RELEASED', 'DISCARDED')),
  body         TEXT NOT NULL,
  body_hash    TEXT NOT NULL,
  created_by   UUID NOT NULL REFERENCES users (id),
  created_at   TIMESTAMPTZ NOT NULL,
  updated_by   UUID NOT NULL REFERENCES users (id),
  updated_at   TIMESTAMPTZ NOT NULL,
  released_by  UUID REFERENCES users (id),
  released_at  TIMESTAMPTZ,
  discarded_by UUID REFERENCES users (id),
  discarded_at TIMESTAMPTZ,
  PRIMARY KEY (pipeline_id, version),
  CHECK ((status = 'DRAFT') = (released_at IS NULL)),
  CHECK ((status = 'DISCARDED') = (discarded_at IS NOT NULL))
);
CREATE UNIQUE INDEX pipeline_versions_one_draft ON pipeline_versions (pipeline_id)
  WHERE status = 'DRAFT';
ALTER TABLE pipelines ADD CONSTRAINT pipelines_current_version_fk
  FOREIGN KEY (id, current_version) REFERENCES pipeline_versions (pipeline_id, version);

CREATE TABLE templates (
  id              UUID PRIMARY KEY,
  workspace_id    UUID NOT NULL REFERENCES workspaces (id),
  name            TEXT NOT NULL,
  type            TEXT NOT NULL CHECK (type IN ('sql', 'html')),
  dialect         TEXT,
  display_name    TEXT NOT NULL,
  description     TEXT,
  current_version INTEGER,
  owner_id        UUID NOT NULL REFERENCES users (id),
  created_at      TIMESTAMPTZ NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL,
  UNIQUE (workspace_id, name),
  CHECK ((type = 'sql') = (dialect IS NOT NULL))
);
CREATE INDEX templates_owner ON templates (owner_id);

CREATE TABLE template_versions (
  template_id  UUID NOT NULL REFERENCES templates (id),
  version      INTEGER NOT NULL CHECK (version >= 1),
  status       TEXT NOT NULL CHECK (status IN ('DRAFT', 'RELEASED', 'DISCARDED')),
  body         TEXT NOT NULL,
  body_hash    TEXT NOT NULL,
  created_by   UUID NOT NULL REFERENCES users (id),
  created_at   TIMESTAMPTZ NOT NULL,
  updated_by   UUID NOT NULL REFERENCES users (id),
  updated_at   TIMESTAMPTZ NOT NULL,
  released_by  UUID REFERENCES users (id),
  released_at  TIMESTAMPTZ,
  discarded_by UUID REFERENCES users (id),
  discarded_at TIMESTAMPTZ,
  PRIMARY KEY (template_id, version),
  CHECK ((status = 'DRAFT') = (released_at IS NULL)),
  CHECK ((status = 'DISCARDED') = (discarded_at IS NOT NULL))
);
CREATE UNIQUE INDEX template_versions_one_draft ON template_versions (template_id)
  WHERE status = 'DRAFT';
ALTER TABLE templates ADD CONSTRAINT templates_current_version_fk
  FOREIGN KEY (id, current_version) REFERENCES template_versions (template_id, version);
