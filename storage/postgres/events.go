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
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/teamchat/chat"
)

// maxNotifyPayload is the largest NOTIFY payload sent inline: PostgreSQL
// refuses payloads of 8000 bytes or more. Larger batches go through the
// event_outbox table, and the notification carries the row's ID.
const maxNotifyPayload = 7999

// Notification payloads start with a kind: an inline batch or an outbox
// row's ID.
const (
	kindInline = 'i'
	kindOutbox = 'o'
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

// Events is a chat.EventSink for processes sharing one database: Publish
// sends each batch of events through PostgreSQL NOTIFY, and every process,
// the publishing one included, delivers the batches it receives on its
// LISTEN connection to its local sink (the process's chat.Hub). So a
// user's event queue on one process receives the events caused on any,
// each once, and every process sees the batches in the order PostgreSQL
// committed the notifications.
//
// The channel is named after the connection's current schema, so that
// deployments in different schemas of one database do not hear each other.
//
// Events whose form is computed per event queue (chat.Event.PerQueue:
// message events, channel typing, message edits and deletions) carry Go
// code, which cannot travel: the publishing process keeps its batches
// until its own notification comes back and delivers them whole, in the
// same order as everything else, while other processes receive the batch
// without those events. So far only clients connected to the process that
// served the request receive them (see the README).
type Events struct {
	pool    *pgxpool.Pool
	local   chat.EventSink
	opts    EventsOptions
	channel string
	// origin names this Events in the batches it publishes.
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
	var origin [8]byte
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
	if payload == "" {
		return
	}
	data := payload[1:]
	switch payload[0] {
	case kindInline:
	case kindOutbox:
		id, err := strconv.ParseInt(data, 10, 64)
		if err == nil {
			err = e.pool.QueryRow(ctx, `SELECT payload FROM event_outbox WHERE id = $1`, id).Scan(&data)
		}
		if err != nil {
			e.opts.Logger.Error("postgres: reading an event batch", "id", payload[1:], "err", err)
			return
		}
	default:
		e.opts.Logger.Error("postgres: unknown event notification", "payload", payload)
		return
	}
	origin, seq, events, err := decodeBatch([]byte(data))
	if err != nil {
		e.opts.Logger.Error("postgres: decoding an event batch", "err", err)
		return
	}
	if origin == e.origin {
		// One of ours: deliver the events as published.
		e.mu.Lock()
		own, ok := e.pending[seq]
		delete(e.pending, seq)
		e.mu.Unlock()
		if !ok {
			return // published while not listening: delivered already
		}
		events = own
	}
	if len(events) > 0 {
		e.local.Publish(ctx, events)
	}
}

// Publish sends the batch to every listening process, this one included,
// with one statement; this process delivers it, events computed per queue
// included, when its notification comes back. When sending fails, or this
// process is not listening (its connection was lost), the batch is
// delivered to the local sink directly, so that at least this process's
// clients get it.
func (e *Events) Publish(ctx context.Context, events []chat.Event) {
	if len(events) == 0 {
		return
	}
	e.mu.Lock()
	listening := e.listening
	e.seq++
	seq := e.seq
	if listening {
		e.pending[seq] = events
	}
	e.mu.Unlock()
	batch, err := encodeBatch(e.origin, seq, events)
	if err != nil {
		e.opts.Logger.Error("postgres: encoding an event batch", "err", err)
	} else if len(batch)+1 <= maxNotifyPayload {
		_, err = e.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, e.channel, string(kindInline)+string(batch))
	} else {
		// The notification goes out when the INSERT commits, so listeners
		// find the row.
		_, err = e.pool.Exec(ctx, `WITH o AS (INSERT INTO event_outbox (payload) VALUES ($2) RETURNING id)
			SELECT pg_notify($1, $3 || id) FROM o`, e.channel, string(batch), string(kindOutbox))
	}
	if err != nil {
		e.opts.Logger.Error("postgres: publishing events; delivering them to this process only", "err", err)
		if listening {
			// Unless the batch came back after all, or the listener was
			// lost (and the server dropped its queues), deliver it here.
			e.mu.Lock()
			_, listening = e.pending[seq]
			delete(e.pending, seq)
			e.mu.Unlock()
			if !listening {
				return
			}
		}
		e.local.Publish(ctx, events)
		return
	}
	if !listening {
		e.local.Publish(ctx, events)
	}
}

// wireBatch is a batch of events as it travels between processes: the
// publisher's origin and sequence number, and its events but those
// computed per queue.
type wireBatch struct {
	Origin string      `json:"o"`
	Seq    uint64      `json:"s"`
	Events []wireEvent `json:"e"`
}

// wireEvent is an event as it travels between processes.
type wireEvent struct {
	RealmID  int64           `json:"r"`
	UserIDs  []int64         `json:"u"`
	AllUsers bool            `json:"a,omitempty"`
	Payload  json.RawMessage `json:"p"`
}

// encodeBatch writes the batch as JSON, the payloads encoded as the hub
// encodes them (no HTML escaping).
func encodeBatch(origin string, seq uint64, events []chat.Event) ([]byte, error) {
	wire := wireBatch{Origin: origin, Seq: seq, Events: make([]wireEvent, 0, len(events))}
	for _, ev := range events {
		if ev.PerQueue != nil {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ev.Payload); err != nil {
			return nil, err
		}
		wire.Events = append(wire.Events, wireEvent{RealmID: ev.RealmID, UserIDs: ev.UserIDs, AllUsers: ev.AllUsers,
			Payload: bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wire); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// decodeBatch is the inverse of encodeBatch. Each payload's top-level
// strings, booleans, nulls and numbers become Go values that the hub's
// filters can read (numbers as json.Number, exact); objects and arrays
// stay raw JSON, so that the hub encodes every payload to the bytes the
// publishing process would have written itself.
func decodeBatch(data []byte) (origin string, seq uint64, events []chat.Event, err error) {
	var wire wireBatch
	if err := json.Unmarshal(data, &wire); err != nil {
		return "", 0, nil, err
	}
	events = make([]chat.Event, len(wire.Events))
	for i, w := range wire.Events {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(w.Payload, &fields); err != nil {
			return "", 0, nil, err
		}
		payload := make(map[string]any, len(fields))
		for k, raw := range fields {
			v, err := decodeValue(raw)
			if err != nil {
				return "", 0, nil, err
			}
			payload[k] = v
		}
		events[i] = chat.Event{RealmID: w.RealmID, UserIDs: w.UserIDs, AllUsers: w.AllUsers, Payload: payload}
	}
	return wire.Origin, wire.Seq, events, nil
}

func decodeValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, errors.New("empty value")
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case c == 't' || c == 'f':
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case c == 'n':
		return nil, nil
	case c == '-' || c >= '0' && c <= '9':
		return json.Number(raw), nil
	}
	return raw, nil
}
