-- SQLite serves one process: its request budgets stay in memory. This
-- migration keeps the versions of the two backends in step.
SELECT 1;
