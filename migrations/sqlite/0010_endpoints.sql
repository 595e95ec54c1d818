-- Published endpoints (spec 3 §2.4, §4.3). path_pattern is unique deployment-wide (the conflict
-- rule, wider than equality, is checked by the service under the table's write lock). The pinned
-- pipeline carries no foreign key: deleting a pipeline must not fail on its endpoints, which then
-- answer 503 until unpublished. Bindings live on the keys (api_keys.bindings, spec 1 §2.3).
CREATE TABLE endpoints (
  id              TEXT PRIMARY KEY,
  path_pattern    TEXT NOT NULL UNIQUE,
  workspace_id    TEXT NOT NULL REFERENCES workspaces (id),
  pipeline_id     TEXT NOT NULL,
  timeout_seconds INTEGER NOT NULL CHECK (timeout_seconds >= 1),
  enabled         INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  description     TEXT,
  created_by      TEXT NOT NULL REFERENCES users (id),
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX endpoints_workspace ON endpoints (workspace_id, path_pattern);
CREATE INDEX endpoints_pipeline ON endpoints (pipeline_id);

-- An endpoint-kind key reads an execution only when an endpoint.served row pairs the two
-- (spec 3 §4.3 item 8); this finds that row without scanning every serve.
CREATE INDEX audit_log_served_execution ON audit_log (json_extract(details, '$.execution_id'))
  WHERE event = 'endpoint.served';
