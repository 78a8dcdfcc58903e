package postgres

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// maxNotifyPayload is the largest NOTIFY payload sent inline: PostgreSQL
// refuses payloads of 8000 bytes or more. Larger batches go through the
// event_outbox table, and the notification carries the row's ID.
const maxNotifyPayload = 7999

// A notification's payload is a header, KIND ORIGIN SEQ ":", and the
// batch: its kind says whether the batch follows inline or is the outbox
// row whose ID follows; ORIGIN (16 hex digits) and SEQ (decimal) name the
// publishing Events and the batch's number there, so that the publisher
// recognises its own batches without reading them.
const (
	kindInline = 'i'
	kindOutbox = 'o'
	originLen  = 16
)

// outboxRetention is how long outbox rows are kept: long enough for every
// listening process to read them.
const outboxRetention = 5 * time.Minute

// EventsOptions holds the settings of Events. Every zero field has the
// default given with it.
type EventsOptions struct {
	// Logger receives the failures of publishing and listening. Nil means
	// slog.Default().
	Logger *slog.Logger
	// Lost is called when the listening connection was lost and has been
	// re-established: events published meanwhile never reached this
	// process. Nil means nothing; servers drop their event queues
	// (chat.Hub.DropQueues), so that clients register again.
	Lost func()
	// ReconnectDelay is the longest wait between attempts to listen again
	// after the connection was lost. Zero means 5 seconds.
	ReconnectDelay time.Duration
}

// Events is a chat.EventSink for processes sharing one database: it sends
// each batch of events through PostgreSQL NOTIFY (PublishInTx, in the
// write transaction that caused them; Publish, on its own), and every
// process, the publishing one included, delivers the batches it receives
// on its LISTEN connection to its local sink (the process's chat.Hub). So a
// user's event queue on one process receives the events caused on any,
// each once, and every process sees the batches in the order PostgreSQL
// committed the notifications.
//
// The channel is named after the connection's current schema, so that
// deployments in different schemas of one database do not hear each other.
//
// Events travel as chat.Event's JSON, those whose form is computed per
// event queue (chat.Event.PerQueue: message events, channel typing,
// message edits and deletions) as the data their forms are made from, so
// that every process gives its queues the bytes the publishing process
// would have. The publishing process keeps its batches until their
// notification comes back and delivers them as published, which saves
// reading and decoding them, and delivers a batch once even when sending
// it seemed to fail.
type Events struct {
	pool    *pgxpool.Pool
	local   chat.EventSink
	opts    EventsOptions
	channel string
	// origin names this Events in the batches it publishes: originLen
	// random hex digits.
	origin string

	cancel context.CancelFunc
	done   chan struct{}
	// mu guards listening: whether the listener is connected, so Publish
	// knows whether its own batches will come back; and the batches
	// published and not yet come back, by sequence number.
	mu        sync.Mutex
	listening bool
	seq       uint64
	pending   map[uint64][]chat.Event
}

// NewEvents starts listening for the events published on the store's
// database, with a connection of its own (outside the pool), and returns
// once it listens, so that no batch published afterwards is missed. local
// receives every batch; Close stops listening.
func NewEvents(ctx context.Context, s *Store, local chat.EventSink, opts EventsOptions) (*Events, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.ReconnectDelay <= 0 {
		opts.ReconnectDelay = 5 * time.Second
	}
	var origin [originLen / 2]byte
	rand.Read(origin[:])
	e := &Events{pool: s.pool, local: local, opts: opts, done: make(chan struct{}),
		origin: hex.EncodeToString(origin[:]), pending: map[uint64][]chat.Event{}}
	var schema string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, fmt.Errorf("postgres: events: %w", err)
	}
	e.channel = "chat_events"
	if schema != "public" {
		e.channel += "." + schema
	}
	conn, err := e.listen(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: events: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.setListening(true)
	go e.run(runCtx, conn)
	return e, nil
}

// Close stops listening and waits for the listener to end. Publish still
// works afterwards, delivering to the local sink only.
func (e *Events) Close() error {
	e.cancel()
	<-e.done
	return nil
}

// listen opens the dedicated connection and subscribes to the channel.
func (e *Events) listen(ctx context.Context) (*pgx.Conn, error) {
	cfg := e.pool.Config().ConnConfig.Copy()
	// The listener's waits end by their deadline; a cancel request to the
	// server (the default) would be useless, as no query runs.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{e.channel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// setListening records whether the listener is connected. Batches
// published before a loss may never come back, so they are forgotten:
// Lost tells the server that events were missed.
func (e *Events) setListening(v bool) {
	e.mu.Lock()
	e.listening = v
	if !v {
		clear(e.pending)
	}
	e.mu.Unlock()
}

// run receives notifications until ctx ends, listening again after the
// connection is lost, and removes old outbox rows now and then.
func (e *Events) run(ctx context.Context, conn *pgx.Conn) {
	defer close(e.done)
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	sweep := time.NewTicker(time.Minute)
	defer sweep.Stop()
	for {
		if conn == nil {
			conn = e.reconnect(ctx)
			if conn == nil {
				return // ctx ended
			}
			e.setListening(true)
			if e.opts.Lost != nil {
				e.opts.Lost()
			}
		}
		waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		select {
		case <-sweep.C:
			e.sweep(ctx)
		default:
		}
		switch {
		case err == nil:
			e.deliver(ctx, n.Payload)
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			// No notification for a minute: check the connection.
			if err := conn.Ping(ctx); err == nil {
				continue
			}
			fallthrough
		default:
			if ctx.Err() != nil {
				return
			}
			e.opts.Logger.Error("postgres: event listener lost its connection", "err", err)
			e.setListening(false)
			conn.Close(context.Background())
			conn = nil
		}
	}
}

// reconnect listens again, waiting longer after each failure, until it
// succeeds or ctx ends (nil).
func (e *Events) reconnect(ctx context.Context) *pgx.Conn {
	delay := 100 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		conn, err := e.listen(ctx)
		if err == nil {
			return conn
		}
		e.opts.Logger.Error("postgres: event listener cannot reconnect", "err", err)
		delay = min(2*delay, e.opts.ReconnectDelay)
	}
}

// sweep removes the outbox rows that every listener has had time to read.
func (e *Events) sweep(ctx context.Context) {
	if _, err := e.pool.Exec(ctx, `DELETE FROM event_outbox WHERE created_at < now() - $1::interval`,
		outboxRetention.String()); err != nil && ctx.Err() == nil {
		e.opts.Logger.Error("postgres: removing old event batches", "err", err)
	}
}

// deliver decodes a notification and publishes its batch locally.
func (e *Events) deliver(ctx context.Context, payload string) {
	kind, origin, seq, data, ok := parseNotification(payload)
	if !ok {
		e.opts.Logger.Error("postgres: unknown event notification", "payload", payload)
		return
	}
	if origin == e.origin {
		// One of ours: deliver the events as published.
		e.mu.Lock()
		own, ok := e.pending[seq]
		delete(e.pending, seq)
		e.mu.Unlock()
		if ok {
			e.local.Publish(ctx, own)
		}
		// Otherwise it was published while not listening (delivered
		// already), or in a transaction that seemed not to commit, whose
		// batch was kept for unsureRetention.
		return
	}
	if kind == kindOutbox {
		id, err := strconv.ParseInt(data, 10, 64)
		if err == nil {
			err = e.pool.QueryRow(ctx, `SELECT payload FROM event_outbox WHERE id = $1`, id).Scan(&data)
		}
		if err != nil {
			e.opts.Logger.Error("postgres: reading an event batch", "id", data, "err", err)
			return
		}
	}
	var events []chat.Event
	if err := json.Unmarshal([]byte(data), &events); err != nil {
		e.opts.Logger.Error("postgres: decoding an event batch", "origin", origin, "seq", seq, "err", err)
		return
	}
	if len(events) > 0 {
		e.local.Publish(ctx, events)
	}
}

// parseNotification splits a notification's payload into its header's
// parts and the rest.
func parseNotification(payload string) (kind byte, origin string, seq uint64, data string, ok bool) {
	if len(payload) < 1+originLen || payload[0] != kindInline && payload[0] != kindOutbox {
		return 0, "", 0, "", false
	}
	kind, origin, rest := payload[0], payload[1:1+originLen], payload[1+originLen:]
	n, data, found := strings.Cut(rest, ":")
	seq, err := strconv.ParseUint(n, 10, 64)
	if !found || err != nil {
		return 0, "", 0, "", false
	}
	return kind, origin, seq, data, true
}

// Publish sends the batch to every listening process, this one included,
// with one statement; this process delivers it, as published, when its
// notification comes back. When sending fails, or this process is not
// listening (its connection was lost), the batch is delivered to the
// local sink directly, so that at least this process's clients get it.
//
// The events travel as chat.Event's JSON, written without HTML escaping so
// that the payloads' objects keep the bytes the hub writes (see
// chat.Event.MarshalJSON).
func (e *Events) Publish(ctx context.Context, events []chat.Event) {
	if len(events) == 0 {
		return
	}
	seq, listening := e.begin(events)
	notification, err := e.encode(seq, events)
	if err == nil {
		err = e.send(ctx, e.pool, notification)
	}
	if err != nil {
		e.opts.Logger.Error("postgres: publishing events; delivering them to this process only", "err", err)
		// Unless the batch came back after all, or the listener was lost
		// (and the server dropped its queues), deliver it here.
		if listening && !e.forget(seq) {
			return
		}
		e.local.Publish(ctx, events)
		return
	}
	if !listening {
		e.local.Publish(ctx, events)
	}
}

// unsureRetention is how long a batch published in a transaction that
// seemed not to commit is kept for its notification: when a commit's
// answer is lost, the transaction may have committed after all.
const unsureRetention = 10 * time.Second

// PublishInTx sends the batch as part of st, a write transaction of the
// store (chat.TxEventSink): PostgreSQL sends a transaction's notifications
// when it commits, in commit order, and drops them when it rolls back, so
// every process hears the batch if and only if the transaction committed,
// and a process that stops after its commit loses none. It costs no round
// trip of its own after the commit. It returns ok false for a transaction
// that is not the store's.
func (e *Events) PublishInTx(ctx context.Context, st storage.Tx, events []chat.Event) (ended func(committed bool), ok bool, err error) {
	t, isOurs := st.(*tx)
	if !isOurs || len(events) == 0 {
		return nil, false, nil
	}
	if err := t.Writable(); err != nil {
		return nil, false, err
	}
	seq, listening := e.begin(events)
	notification, err := e.encode(seq, events)
	if err != nil {
		// Publish, after the commit, reports it.
		e.forget(seq)
		return nil, false, nil
	}
	if err := e.send(ctx, t.tx, notification); err != nil {
		e.forget(seq)
		return nil, false, t.check("PublishEvents", err)
	}
	return func(committed bool) {
		switch {
		case committed && !listening:
			e.local.Publish(ctx, events)
		case !committed && listening:
			time.AfterFunc(unsureRetention, func() { e.forget(seq) })
		}
	}, true, nil
}

// execer runs a statement: the pool, or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// begin numbers a batch and, while the listener is connected, keeps it
// until its notification comes back; it reports whether it kept it.
func (e *Events) begin(events []chat.Event) (seq uint64, listening bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seq++
	if e.listening {
		e.pending[e.seq] = events
	}
	return e.seq, e.listening
}

// forget drops a kept batch; it reports whether the batch was still kept
// (its notification had not come back).
func (e *Events) forget(seq uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, kept := e.pending[seq]
	delete(e.pending, seq)
	return kept
}

// encode makes the notification of a batch: the header, then the batch.
func (e *Events) encode(seq uint64, events []chat.Event) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte(kindInline)
	buf.WriteString(e.origin)
	buf.WriteString(strconv.FormatUint(seq, 10))
	buf.WriteByte(':')
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(events); err != nil {
		return nil, fmt.Errorf("encoding an event batch: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// send sends a notification with x: inline when it fits, else through an
// outbox row, whose notification goes out when the row's INSERT commits,
// so that listeners find it.
func (e *Events) send(ctx context.Context, x execer, notification []byte) error {
	if len(notification) <= maxNotifyPayload {
		_, err := x.Exec(ctx, `SELECT pg_notify($1, $2)`, e.channel, string(notification))
		return err
	}
	header, batch, _ := bytes.Cut(notification, []byte{':'})
	_, err := x.Exec(ctx, `WITH o AS (INSERT INTO event_outbox (payload) VALUES ($2) RETURNING id)
		SELECT pg_notify($1, $3 || id) FROM o`, e.channel, string(batch), string(kindOutbox)+string(header[1:])+":")
	return err
}
