-- Executions by pipeline and version, newest last. Published endpoints add an execution per
-- request, so a read that filters executions by pipeline must not walk them all: the history's
-- pipeline_id filter, the promotion inventory's last result columns of a released version
-- (lastResultColumns), and the foreign-key check when a pipeline is deleted.
CREATE INDEX executions_by_pipeline ON executions (pipeline_id, pipeline_version, started_at);
