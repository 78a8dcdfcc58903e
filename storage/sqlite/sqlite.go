// Package sqlite is a persistent storage backend for package chat, on
// SQLite through the pure-Go modernc.org/sqlite driver (no cgo).
//
// A Store keeps two database/sql pools on one database file in WAL mode: a
// writer with a single connection whose transactions begin IMMEDIATE, which
// serialises Store.Update, and a pool of query-only readers for Store.View,
// each View reading one snapshot while writers go on. The schema is created
// and upgraded by the SQL migrations embedded in the package, tracked with
// PRAGMA user_version.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// readerConns is the size of the reader pool.
const readerConns = 4

// The backend implements the storage SPI and answers every optional query
// itself.
var (
	_ storage.Store = (*Store)(nil)
	_ sqlcommon.Tx  = (*tx)(nil)
)

// Store is a storage.Store on a SQLite database file. It is safe for
// concurrent use. Open it with Open; the zero value is not usable.
type Store struct {
	writer *sql.DB
	reader *sql.DB
	// wstmts holds every query prepared on the writer, rstmts the read
	// queries prepared on the reader pool (write queries are nil there).
	wstmts stmts
	rstmts stmts
	// wtexts and rtexts hold the statements run by their text.
	wtexts textStmts
	rtexts textStmts
	cache  realmCache[storage.UserRecord]
	// channels keeps the realms' channel lists (cache.go).
	channels realmCache[storage.Channel]
	// rows caches rows that write transactions read (rowcache.go).
	rows rowCache
	// queries counts the statements transactions ran (QueryCount).
	queries atomic.Int64
	// The deferred rows of big fan-outs (fanout.go): pendingEmpty says
	// no row was pending at the end of this process's last write that
	// looked, unless another connection wrote since; kick wakes the
	// settler, which closes settlerDone when stopSettler ends it.
	// deferMin and autoSettle are the defaults but for tests, as is
	// settleTurn, the rows the settler stores in one transaction
	// (settleTurnRows).
	pendingEmpty atomic.Bool
	settleTurn   atomic.Int64
	kick         chan struct{}
	settlerDone  chan struct{}
	stopSettler  context.CancelFunc
	deferMin     int
	autoSettle   bool
	// The checkpointer (checkpoint.go): ckPool is its connection, ckKick
	// wakes it, and it closes ckDone when stopCk ends it; checkpoints
	// counts the checkpoints it ran, restartTries and restarts the tries
	// to start the log over (past restartFrames pages, a default but for
	// tests) and their successes.
	ckPool        *sql.DB
	ckKick        chan struct{}
	ckDone        chan struct{}
	stopCk        context.CancelFunc
	checkpoints   atomic.Int64
	restartTries  atomic.Int64
	restarts      atomic.Int64
	restartFrames atomic.Int64
}

// QueryCount returns how many SQL statements transactions have run since
// the store was opened. Tests compare it before and after a request to pin
// down how many queries each operation costs, so that a change that makes
// one query per row shows up.
func (s *Store) QueryCount() int64 { return s.queries.Load() }

// Open opens the database file at path, creating it when it does not exist,
// and brings its schema up to date. The directory must exist. Open fails
// when the file is not a SQLite database, when its schema is newer than
// this package knows, or when a migration fails.
func Open(path string) (*Store, error) {
	return openStore(path, defaultDeferMin, true)
}

// openStore is Open with the deferral's settings (fanout.go): tests defer
// every new message's rows, and settle them only when a write needs them.
func openStore(path string, deferMin int, autoSettle bool) (*Store, error) {
	ctx := context.Background()
	s := &Store{}
	s.cache.clone, s.cache.merge = slices.Clone[[]storage.UserRecord], mergeUsers
	s.channels.clone = cloneChannels
	var err error
	if s.writer, err = sql.Open("sqlite", dsn(path, false)); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	if err := migrate(ctx, s.writer); err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if s.reader, err = sql.Open("sqlite", dsn(path, true)); err != nil {
		s.writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.reader.SetMaxOpenConns(readerConns)
	s.reader.SetMaxIdleConns(readerConns)
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if s.ckPool, err = sql.Open("sqlite", dsn(path, false)); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.ckPool.SetMaxOpenConns(1)
	s.ckPool.SetMaxIdleConns(1)
	s.restartFrames.Store(defaultRestartFrames)
	s.ckKick, s.ckDone = make(chan struct{}, 1), make(chan struct{})
	ckCtx, stopCk := context.WithCancel(context.Background())
	s.stopCk = stopCk
	go s.checkpointer(ckCtx, s.ckPool)
	s.deferMin, s.autoSettle = deferMin, autoSettle
	s.settleTurn.Store(settleTurnRows)
	s.kick, s.settlerDone = make(chan struct{}, 1), make(chan struct{})
	settlerCtx, stop := context.WithCancel(context.Background())
	s.stopSettler = stop
	go s.settler(settlerCtx)
	// Rows a crash left pending.
	var pending bool
	if err := s.writer.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM user_messages_pending)`).Scan(&pending); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if pending {
		s.kickSettler()
	}
	return s, nil
}

// writerCacheKiB bounds the writer connection's page cache, in KiB. It
// costs about twice that in memory once full: the allocator under the
// driver (modernc.org/memory) gives each 4 KiB page with its header an
// 8 KiB slot. 32 MiB was no faster (BENCHMARKS.md).
const writerCacheKiB = 16 << 10

// busyTimeoutMillis is how long a connection waits for a lock that
// another holds before it fails with SQLITE_BUSY.
const busyTimeoutMillis = 10000

// dsn is the driver's name for the database file at path: an SQLite URI
// whose parameters set the pragmas of every connection. Readers are
// query-only; the writer begins its transactions IMMEDIATE, taking the write
// lock at once so that a transaction never fails to upgrade its lock.
func dsn(path string, reader bool) string {
	p := filepath.ToSlash(path)
	if abs, err := filepath.Abs(path); err == nil {
		p = filepath.ToSlash(abs)
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	// Characters that end the path or start an escape in a URI.
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	var b strings.Builder
	b.WriteString("file:")
	b.WriteString(p)
	// temp_store(MEMORY) keeps statement and savepoint journals in memory:
	// multi-row inserts and savepoints would otherwise write a temporary
	// file for every page they change.
	b.WriteString("?_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMillis) + ")&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)")
	if reader {
		b.WriteString("&_pragma=query_only(1)")
	} else {
		// The checkpointer copies the log back, not the writer's commits
		// (checkpoint.go). The writer's page cache holds the pages that a
		// settling of a big channel's rows changes (fanout.go: two per
		// recipient, 8 MiB for 1 000): with SQLite's default of 2 MiB it
		// wrote them to the log in the middle of the transaction, read
		// them back, and wrote them again at the commit. (The
		// checkpointer's connection opens with the same parameters; a
		// checkpoint copies the log's frames without the page cache.)
		// journal_size_limit: when the log starts over, a file that grew
		// past twice the restart's length (before restarts, or behind a
		// reader that held it) is cut back.
		b.WriteString("&_txlock=immediate&_pragma=wal_autocheckpoint(0)&_pragma=cache_size(-" + strconv.Itoa(writerCacheKiB) + ")")
		b.WriteString("&_pragma=journal_size_limit(" + strconv.Itoa(2*defaultRestartFrames*4096) + ")")
	}
	return b.String()
}

// prepare prepares the read queries on both pools and the write queries on
// the writer.
func (s *Store) prepare(ctx context.Context) error {
	for q, text := range queries {
		st, err := s.writer.PrepareContext(ctx, text)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", text, err)
		}
		s.wstmts[q] = st
		if query(q) >= firstWrite {
			continue
		}
		if st, err = s.reader.PrepareContext(ctx, text); err != nil {
			return fmt.Errorf("prepare %q: %w", text, err)
		}
		s.rstmts[q] = st
	}
	return nil
}

// View runs fn in a read-only transaction on the reader pool: every read of
// fn sees the database as it was at its first read, and every write returns
// storage.ErrReadOnly. View returns fn's error, or an error without running fn
// when ctx is done or the store is closed.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	s.rtexts.prepare(ctx, s.reader)
	sqlTx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlite: begin read transaction: %w", err)
	}
	defer sqlTx.Rollback()
	return fn(&tx{ctx: ctx, tx: sqlTx, cache: &s.cache, channelCache: &s.channels, queries: &s.queries, stmts: &s.rstmts, texts: &s.rtexts,
		TxState: sqlcommon.TxState{ReadOnly: true}})
}

// Update runs fn in a read-write transaction on the writer connection, so
// Updates run one at a time. It commits when fn returns nil and rolls back
// when fn returns an error, which Update returns, or panics, which Update
// lets through. It returns an error without running fn when ctx is done or
// the store is closed, and an error when a storage failure inside fn (other
// than ErrNotFound and ErrExists) may have broken the transaction even if
// fn went on and returned nil; nothing is committed then.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	s.wtexts.prepare(ctx, s.writer)
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: begin transaction: %w", err)
	}
	defer conn.Close()
	var driverConn any
	conn.Raw(func(dc any) error { driverConn = dc; return nil })
	sqlTx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin transaction: %w", err)
	}
	done := false
	defer func() {
		if !done { // fn panicked
			sqlTx.Rollback()
		}
	}()
	reset, err := s.rows.begin(ctx, driverConn, sqlTx, s.wstmts[qDataVersion])
	if err != nil {
		sqlTx.Rollback()
		done = true
		return err
	}
	if reset { // another connection may have left rows pending
		s.pendingEmpty.Store(false)
	}
	t := &tx{ctx: ctx, tx: sqlTx, cache: &s.cache, channelCache: &s.channels, queries: &s.queries, stmts: &s.wstmts, texts: &s.wtexts, rows: &s.rows,
		deferMin: s.deferMin, settled: s.pendingEmpty.Load()}
	err = fn(t)
	done = true
	if err != nil {
		sqlTx.Rollback()
		return err
	}
	if t.Failed != nil {
		sqlTx.Rollback()
		return fmt.Errorf("sqlite: not committing after an earlier failure: %w", t.Failed)
	}
	realmID, from, to, users, patch := t.userListPatch()
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	s.rows.committed()
	s.kickCheckpointer()
	if t.deferred {
		s.pendingEmpty.Store(false)
		s.kickSettler()
	} else if t.settled {
		s.pendingEmpty.Store(true)
	}
	if patch {
		s.cache.patch(realmID, from, to, users)
	}
	return nil
}

// Close stops the settler and the checkpointer and closes the pools.
// Transactions started afterwards fail. Close may be called more than once.
func (s *Store) Close() error {
	if s.stopSettler != nil {
		s.stopSettler()
		<-s.settlerDone
		s.stopSettler = nil
	}
	if s.stopCk != nil {
		s.stopCk()
		<-s.ckDone
		s.stopCk = nil
	}
	errs := []error{s.wtexts.close(), s.rtexts.close()}
	for _, set := range []*stmts{&s.rstmts, &s.wstmts} {
		for _, st := range set {
			if st != nil {
				errs = append(errs, st.Close())
			}
		}
	}
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	if s.ckPool != nil {
		errs = append(errs, s.ckPool.Close())
	}
	errs = append(errs, s.writer.Close())
	return errors.Join(errs...)
}

// isUniqueViolation reports whether err is the violation of a UNIQUE or
// PRIMARY KEY constraint, judged by the SQLite extended result code.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// isConstraintViolation reports whether err is the violation of any
// constraint (NOT NULL, FOREIGN KEY, ...), by its primary result code.
func isConstraintViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
