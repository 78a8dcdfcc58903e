-- Reserved for a migration of a branch developed in parallel; the lead
-- replaces this placeholder with that branch's file when merging.
SELECT 1;
