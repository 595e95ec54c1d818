-- Where each batched housekeeping sweep of the executions tables has got to (executions/
-- retention.ts), and the row a batch holds while it works (FOR UPDATE SKIP LOCKED), so one
-- replica sweeps at a time. packed_events: the highest execution id whose frames are packed (or
-- need none); execution_records: no mark, only the row a batch holds.
CREATE TABLE housekeeping_marks (
  name TEXT PRIMARY KEY,
  mark TEXT NOT NULL
);
INSERT INTO housekeeping_marks (name, mark) VALUES
  ('execution_records', ''),
  ('packed_events', '');

-- A finished run's frames past its replay window, packed into one row (event_type 'packed', the
-- run's last frame id and observed_at, data empty): executions/packed_events.ts.
ALTER TABLE execution_events ADD COLUMN packed BYTEA;

-- Every serve inserts a run and its frames and, later, the sweeps rewrite and delete them: a
-- steady churn on two tables that stay about the same size. Autovacuum's default waits for 20% of
-- a table to be dead rows; at 5% it comes back sooner and the tables carry less bloat.
ALTER TABLE executions SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE execution_events SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.05);
