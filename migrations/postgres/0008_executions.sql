-- Executions (spec 2 §2.4) and their durable events (§6). An execution row is written when the
-- run starts and rewritten once when it ends; instance_id and heartbeat_at let the reaper find
-- runs left RUNNING by an instance that died; aborted_by names who stopped it (the system actor
-- for the reaper). Events are one row per frame, in emission order, kept for the retention period
-- (service.executions.event-retention-days); replay reads them. JSON columns hold text.
CREATE TABLE executions (
  id                  UUID PRIMARY KEY,
  workspace_id        UUID NOT NULL REFERENCES workspaces (id),
  pipeline_id         UUID NOT NULL REFERENCES pipelines (id),
  pipeline_version    INTEGER NOT NULL,
  status              TEXT NOT NULL CHECK (status IN ('RUNNING', 'SUCCESS', 'FAILED', 'ABORTED')),
  draft_run           BOOLEAN NOT NULL,
  parameters          TEXT NOT NULL,
  started_at          TIMESTAMPTZ NOT NULL,
  completed_at        TIMESTAMPTZ,
  duration_ms         BIGINT,
  node_stats          TEXT,
  error               TEXT,
  failed_node_id      TEXT,
  correlation_id      UUID,
  triggered_by        UUID NOT NULL REFERENCES users (id),
  triggered_via       TEXT NOT NULL CHECK (triggered_via IN ('UI', 'REST', 'MCP', 'PIPELINE', 'ENDPOINT')),
  result_row_count    BIGINT,
  result_size_bytes   BIGINT,
  result_expires_at   TIMESTAMPTZ,
  parent_execution_id UUID REFERENCES executions (id),
  parent_node_id      TEXT,
  root_execution_id   UUID NOT NULL,
  abort_reason        TEXT CHECK (abort_reason IN ('cancelled', 'client_disconnect', 'shutdown')),
  aborted_by          UUID REFERENCES users (id),
  instance_id         TEXT NOT NULL,
  heartbeat_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX executions_list ON executions (workspace_id, started_at);
CREATE INDEX executions_running ON executions (status, heartbeat_at);

CREATE TABLE execution_events (
  execution_id UUID NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
  event_id     INTEGER NOT NULL,
  event_type   TEXT NOT NULL,
  data         TEXT NOT NULL,
  observed_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (execution_id, event_id)
);
CREATE INDEX execution_events_observed ON execution_events (observed_at);
