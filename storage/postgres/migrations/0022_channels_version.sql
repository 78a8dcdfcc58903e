-- SQLite keeps each realm's channel list in memory by a version that its
-- migration 22 adds; PostgreSQL serves several processes and keeps none.
-- This migration keeps the versions of the two backends in step.
SELECT 1;
