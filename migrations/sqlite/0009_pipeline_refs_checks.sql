-- Pipeline authoring (spec 2 §2.5, spec 3 §4.1). pipeline_datasource_refs: one row per node (or
-- release check) of a stored pipeline version naming a datasource, written in the transaction
-- that saves the version and dropped with it; `DELETE /datasources/{name}` and the list's
-- `datasource=` filter read it instead of parsing every stored body.
-- pipeline_check_runs: release check runs, appended and never updated (spec 2 §2.5).
CREATE TABLE pipeline_datasource_refs (
  pipeline_id TEXT NOT NULL,
  version     INTEGER NOT NULL,
  node_id     TEXT NOT NULL,
  datasource  TEXT NOT NULL,
  PRIMARY KEY (pipeline_id, version, node_id, datasource),
  FOREIGN KEY (pipeline_id, version) REFERENCES pipeline_versions (pipeline_id, version)
);
CREATE INDEX pipeline_datasource_refs_name ON pipeline_datasource_refs (datasource);

CREATE TABLE pipeline_check_runs (
  id          TEXT PRIMARY KEY,
  pipeline_id TEXT NOT NULL,
  version     INTEGER NOT NULL,
  check_id    TEXT NOT NULL,
  name        TEXT NOT NULL,
  expected    TEXT NOT NULL,
  observed    TEXT,
  verdict     TEXT NOT NULL CHECK (verdict IN ('pass', 'fail', 'error')),
  message     TEXT,
  ran_at      TEXT NOT NULL,
  ran_by      TEXT NOT NULL,
  FOREIGN KEY (pipeline_id, version) REFERENCES pipeline_versions (pipeline_id, version)
);
CREATE INDEX pipeline_check_runs_version ON pipeline_check_runs (pipeline_id, version, check_id, ran_at);
