-- Child runs by their parent. A purged draft takes its runs and the child runs they started
-- (spec 2 §3.1), found by walking parent_execution_id down; deleting an execution also makes the
-- store look for rows that still reference it there. Only child runs carry a parent, so the index
-- holds those alone and a root run, the common case, writes no entry.
CREATE INDEX executions_by_parent ON executions (parent_execution_id)
  WHERE parent_execution_id IS NOT NULL;
