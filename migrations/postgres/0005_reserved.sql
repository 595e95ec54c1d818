-- Placeholder on the lake branch only: version 5 belongs to another branch (the datasource
-- registry and connectors), and the runner refuses gaps in numbering. Delete this file when that
-- branch's 0005_*.sql is merged; the runner refuses two files with one version, so a forgotten
-- placeholder cannot go unnoticed.
SELECT 1;
