package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
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
//
// Under a steady stream of writes, though, a passive checkpoint never
// copies all of the log: commits land while it runs, so the log never
// started over and grew by every settling, to 1.2 GB beside a database of
// 100 MB after 3 200 messages to a 1 000-member channel (43 MB a second;
// a sustained sender could fill the disk). So once a passive checkpoint
// finds the log longer than restartFrames, the checkpointer takes the
// writer's own connection, between two of its transactions, and runs a
// RESTART checkpoint there: it copies what the passive one left, waits
// (restartWait at most) for readers still on the log, and the next commit
// writes the log from its start. Only the writer's connection can:
// another waits for SQLite's write lock by polling, and the writer,
// back-to-back, held it for seconds on end. A restart holds the writer
// 60–200 ms (the settling it waited behind is copied, and synced), every
// two or three seconds under that load; BenchmarkSendSenders, 3 200
// messages, alternating runs: 85.3, 86.6, 82.6 → 88.6, 92.6, 90.4 msg/s,
// the log's file at most 108 MB.

// checkpointDelay is how long the checkpointer lets commits come after
// the first before it checkpoints them all: at most a few checkpoints a
// second under load, each with its two fsyncs, off the writer's path.
const checkpointDelay = 100 * time.Millisecond

// defaultRestartFrames is the length of the log, in pages, past which the
// checkpointer starts it over: 64 MiB, three or four settlings of a
// 1 000-member channel's rows.
const defaultRestartFrames = 16 << 10

// restartWait bounds how long a RESTART checkpoint waits for readers on
// the log, the writer held meanwhile; a restart that times out is tried
// again once the log has grown by restartFrames more (checkpointer).
const restartWait = 100 * time.Millisecond

// checkpointer runs a passive checkpoint on db each time ckKick is
// signalled (after checkpointDelay), until ctx ends; it closes ckDone
// then. A failed checkpoint leaves the log to the next one.
func (s *Store) checkpointer(ctx context.Context, db *sql.DB) {
	defer close(s.ckDone)
	// A restart that a reader made give up is not tried again until the
	// log grows by restartFrames more (or starts over by itself): a reader
	// that stays, such as a backup or a replicator that keeps a read
	// transaction open, would otherwise cost the writer restartWait at
	// every checkpoint.
	var retryAt int64
	afterKicks(ctx, s.ckKick, checkpointDelay, func() {
		var busy, frames, copied int64
		if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
			return
		}
		s.checkpoints.Add(1)
		limit := s.restartFrames.Load()
		if frames < retryAt-limit {
			retryAt = 0 // the log started over
		}
		if frames < max(limit, retryAt) {
			return
		}
		retryAt = 0
		if !s.restartLog(ctx) {
			retryAt = frames + limit
		}
	})
}

// restartLog runs a RESTART checkpoint on the writer's connection (see
// above) and reports whether it copied the whole log, which the next
// commit then writes from its start. It counts its tries in
// s.restartTries and its successes in s.restarts.
func (s *Store) restartLog(ctx context.Context) bool {
	s.restartTries.Add(1)
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(restartWait.Milliseconds(), 10)); err != nil {
		return false
	}
	var busy, frames, copied int64
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &frames, &copied)
	// The writer's own wait for locks, as dsn sets it; a connection that
	// cannot have it back is closed rather than kept with the short one.
	if _, rerr := conn.ExecContext(context.Background(), "PRAGMA busy_timeout = "+strconv.Itoa(busyTimeoutMillis)); rerr != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
		return false
	}
	if err != nil || busy != 0 {
		return false
	}
	s.restarts.Add(1)
	return true
}

// kickCheckpointer asks the checkpointer to run, unless it is asked
// already.
func (s *Store) kickCheckpointer() {
	select {
	case s.ckKick <- struct{}{}:
	default:
	}
}
