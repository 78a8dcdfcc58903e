package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// SQLite copies the write-ahead log back into the database file in
// checkpoints. By default the connection whose commit takes the log past
// 1 000 pages runs one at once, in its commit: with a single writer
// connection, every write waited behind copying the pages of the writes
// before it, most of all after a big channel's rows were settled (some
// 2 000 pages a batch). The writer's connection therefore never
// checkpoints (wal_autocheckpoint(0), dsn), and a goroutine runs passive
// checkpoints on a connection of its own, checkpointDelay after a commit,
// beside the writer: a passive checkpoint takes no lock that a writer or
// reader waits for, and SQLite starts the log over at the first write
// after a checkpoint that copied all of it. As with the automatic one, a
// reader still on an old snapshot keeps the frames it may read.
//
// bench/peer, chatd alone, 2026-11-28: 10-member channel 407 → 499 msg/s,
// 1 000-member channel 65 → 73 msg/s (BENCHMARKS.md, "Peer").

// checkpointDelay is how long the checkpointer lets commits come after
// the first before it checkpoints them all: at most a few checkpoints a
// second under load, each with its two fsyncs, off the writer's path.
const checkpointDelay = 100 * time.Millisecond

// checkpointer runs a passive checkpoint on db each time ckKick is
// signalled (after checkpointDelay), until ctx ends; it closes ckDone
// then. A failed checkpoint leaves the log to the next one.
func (s *Store) checkpointer(ctx context.Context, db *sql.DB) {
	defer close(s.ckDone)
	afterKicks(ctx, s.ckKick, checkpointDelay, func() {
		var busy, frames, copied int64
		if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err == nil {
			s.checkpoints.Add(1)
		}
	})
}

// kickCheckpointer asks the checkpointer to run, unless it is asked
// already.
func (s *Store) kickCheckpointer() {
	select {
	case s.ckKick <- struct{}{}:
	default:
	}
}
