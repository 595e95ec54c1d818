-- Every run start counts its owner's RUNNING executions on other instances (the per-user
-- concurrency limit); this index holds only running rows, so the count reads a handful of entries
-- however long the history grows.
CREATE INDEX executions_running_by_user ON executions (triggered_by, instance_id)
  WHERE status = 'RUNNING';
