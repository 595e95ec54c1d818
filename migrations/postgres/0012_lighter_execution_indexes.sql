-- Two indexes fewer entries to write on every run, none that a query needs:
-- * execution_events_observed cost an entry per frame (a dozen per run) for the hourly retention
--   sweep alone. Execution ids are time-ordered (UUIDv7, minted before the run's first frame), so
--   the sweep bounds its range on the primary key by the cutoff's id instead and checks
--   observed_at on those rows (ExecutionRepo.deleteEventsBefore).
-- * executions_running held every execution ever run, and each run's end moved its entry. The
--   reaper and the heartbeat only look for RUNNING rows, so the index holds those alone: a run
--   adds its entry when it starts and drops it when it ends.
DROP INDEX execution_events_observed;
DROP INDEX executions_running;
CREATE INDEX executions_running ON executions (heartbeat_at) WHERE status = 'RUNNING';
