-- Published endpoints (spec 3 §2.4, §4.3). path_pattern is unique deployment-wide (the conflict
-- rule, wider than equality, is checked by the service under the table's write lock). The pinned
-- pipeline carries no foreign key: deleting a pipeline must not fail on its endpoints, which then
-- answer 503 until unpublished. Bindings live on the keys (api_keys.bindings, spec 1 §2.3).
CREATE TABLE endpoints (
  id              UUID PRIMARY KEY,
  path_pattern    TEXT NOT NULL UNIQUE,
  workspace_id    UUID NOT NULL REFERENCES workspaces (id),
  pipeline_id     UUID NOT NULL,
  timeout_seconds INTEGER NOT NULL CHECK (timeout_seconds >= 1),
  enabled         BOOLEAN NOT NULL DEFAULT TRUE,
  description     TEXT,
  created_by      UUID NOT NULL REFERENCES users (id),
  created_at      TIMESTAMPTZ NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL
);
CREATE INDEX endpoints_workspace ON endpoints (workspace_id, path_pattern);
CREATE INDEX endpoints_pipeline ON endpoints (pipeline_id);

-- An endpoint-kind key reads an execution only when an endpoint.served row pairs the two
-- (spec 3 §4.3 item 8); this finds that row without scanning every serve.
CREATE INDEX audit_log_served_execution ON audit_log (((details::jsonb) ->> 'execution_id'))
  WHERE event = 'endpoint.served';
