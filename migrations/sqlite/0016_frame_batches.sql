-- A run's frames, one row per commit batch per execution (executions/frame_batch.ts): event_type
-- 'frames', event_id the batch's first frame id, last_event_id its last, data the frames in order
-- as [id, event, payload, observed_at] tuples, observed_at the last frame's. Lone frame rows (the
-- reaper's ending) leave last_event_id NULL. The frames already stored move into one batch row per
-- execution; packed rows (0015) stay as they are.
ALTER TABLE execution_events ADD COLUMN last_event_id INTEGER;

CREATE TEMP TABLE frame_batches AS
  SELECT execution_id,
         MIN(event_id) AS event_id,
         MAX(event_id) AS last_event_id,
         MAX(observed_at) AS observed_at,
         json_group_array(json_array(event_id, event_type, json(data), observed_at) ORDER BY event_id)
           AS data
    FROM execution_events
   WHERE event_type <> 'packed'
   GROUP BY execution_id;
DELETE FROM execution_events WHERE event_type <> 'packed';
INSERT INTO execution_events (execution_id, event_id, event_type, data, observed_at, last_event_id)
  SELECT execution_id, event_id, 'frames', data, observed_at, last_event_id FROM frame_batches;
DROP TABLE frame_batches;
