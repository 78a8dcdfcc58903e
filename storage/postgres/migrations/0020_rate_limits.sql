-- Request budgets shared by the processes of one database: per key, the
-- theoretical arrival time of the next request (GCRA), in nanoseconds.
-- Unlogged: a budget lost in a crash is a budget restored, no harm.
CREATE UNLOGGED TABLE rate_limits (
	key TEXT   PRIMARY KEY,
	tat BIGINT NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
