-- Placeholder for migration 0002, which another branch adds; the channels
-- migration is number 0003 and migrations must be contiguous. Drop this
-- file when merging that branch.
SELECT 1;
