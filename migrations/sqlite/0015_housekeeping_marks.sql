-- Where each batched housekeeping sweep of the executions tables has got to (executions/
-- retention.ts), and the row a batch holds while it works, so one replica sweeps at a time.
-- data_ready_rows: the highest execution id whose durable data_ready no longer needs its rows;
-- execution_records: no mark, only the row a batch holds.
CREATE TABLE housekeeping_marks (
  name TEXT PRIMARY KEY,
  mark TEXT NOT NULL
);
INSERT INTO housekeeping_marks (name, mark) VALUES
  ('execution_records', ''),
  ('data_ready_rows', '');
