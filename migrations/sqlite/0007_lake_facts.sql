-- Lake-table registry and learned facts (spec 3 §2.2, §2.3, §3). datasource_id names the
-- datasource without a foreign key for now (the tests build rows without a registry entry); a
-- deleted datasource's rows are unreachable, since a new datasource gets a new id.
CREATE TABLE lake_tables (
  id               TEXT PRIMARY KEY,
  datasource_id    TEXT NOT NULL,
  datasource_name  TEXT NOT NULL,
  -- Dotted form: segments cannot hold dots, so it round-trips to the array.
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  format           TEXT NOT NULL CHECK (format IN ('parquet', 'iceberg')),
  location         TEXT NOT NULL,
  partition_column TEXT,
  created_by       TEXT,
  created_at       TEXT NOT NULL,
  UNIQUE (datasource_id, namespace, name)
);

CREATE TABLE learned_facts (
  id                   TEXT PRIMARY KEY,
  scope                TEXT NOT NULL CHECK (scope IN ('DATASOURCE', 'WORKSPACE')),
  kind                 TEXT NOT NULL,
  fact                 TEXT NOT NULL,
  trust                TEXT NOT NULL
                       CHECK (trust IN ('asserted', 'observed', 'verified', 'needs_review', 'stale')),
  drift                TEXT,
  evidence_summary     TEXT,
  recorded_via         TEXT NOT NULL,
  recorded_at          TEXT NOT NULL,
  recorded_by          TEXT,
  workspace_id         TEXT NOT NULL REFERENCES workspaces (id),
  source_pipeline_id   TEXT,
  source_pipeline_name TEXT,
  datasource_id        TEXT NOT NULL,
  datasource_name      TEXT NOT NULL,
  schema_name          TEXT,
  table_name           TEXT,
  column_name          TEXT,
  -- Fingerprint of the referenced table's columns when the fact was recorded (see facts.ts).
  column_fingerprint   TEXT,
  retired_at           TEXT,
  retired_by           TEXT
);
CREATE INDEX learned_facts_datasource ON learned_facts (datasource_id, retired_at);
CREATE INDEX learned_facts_workspace ON learned_facts (workspace_id, retired_at);
