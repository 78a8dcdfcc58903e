package sqlite

import (
	"cmp"
	"context"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// A message to a channel of a thousand subscribers makes a thousand rows
// in user_messages, keyed by user: each row lands on a page of its own in
// the table and in its unread index, so one message dirtied about 2 000
// pages (8 MB of WAL) and the big channel's sends ran at a tenth of the
// small ones'. Written for many messages at once, the rows of each user
// share their page.
//
// So a write transaction that creates a new channel message with at least
// defaultDeferMin recipients whose rows carry no flag (the subscribers
// who are not mentioned) stores those recipients as one row of
// user_messages_pending instead, and the store's settler moves every
// pending row into user_messages in a write transaction of its own,
// settleDelay after the commit, for all the messages that came
// meanwhile. The rows that carry flags (the sender's read, a mention) are
// written at once.
//
// Until then the pending rows are rows like the others, so nothing of the
// storage SPI changes:
//   - a write transaction that reads or writes user_messages settles
//     first (moves the rows itself), since it holds the writer;
//   - a read transaction, which cannot, reads the pending rows of its
//     snapshot once and counts them in: every method that reads users'
//     rows merges them (UserMessage, MessageRecipients, MessageReaders,
//     FindMessages, UnreadMessages).
//
// Pending rows survive a crash: the next write that touches users' rows,
// or the settler at the next Open, moves them.

// unsettled makes the transaction's reads of user_messages whole. In a
// write transaction it moves the pending rows into user_messages and
// returns nil. In a read transaction it returns the pending rows of its
// snapshot, read at its first call, for the caller to count in.
func (t *tx) unsettled() (pendingRows, error) {
	if !t.ReadOnly {
		return nil, t.settle()
	}
	if t.pendingRead {
		return t.pending, nil
	}
	err := t.query("PendingRecipients", `SELECT p.message_id, m.channel_id, p.user_ids
		FROM user_messages_pending AS p JOIN messages AS m ON m.id = p.message_id`, func(sc scanner) error {
		var id int64
		var pm pendingMessage
		var users string
		if err := sc.Scan(&id, &pm.channelID, &users); err != nil {
			return err
		}
		var err error
		if pm.users, err = parseIDList(users); err != nil {
			return err
		}
		if t.pending == nil {
			t.pending = pendingRows{}
		}
		t.pending[id] = pm
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.pendingRead = true
	return t.pending, nil
}

// parseIDList parses a JSON array of IDs as jsonIDs writes it.
func parseIDList(s string) ([]int64, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// settle moves every pending row into user_messages, once per write
// transaction unless the transaction defers rows again.
func (t *tx) settle() error {
	if t.settled {
		return nil
	}
	if err := t.Writable(); err != nil {
		return err
	}
	ids, settled, err := t.pendingLists()
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		wrote(t.rows, recipientRows, ids...)
		// In the order of the table's key, so that each user's page is
		// written once for all the messages. OR IGNORE spares SQLite the
		// statement journal, a copy of every page the insert changes kept
		// in case it fails halfway (6 % of a big channel's CPU); and a row
		// already there, which carries its flags, is the one to keep.
		if _, err := t.exec("Settle", `INSERT OR IGNORE INTO user_messages (user_id, message_id, flags)
			SELECT j.value, p.message_id, 0 FROM user_messages_pending AS p, json_each(p.user_ids) AS j
			ORDER BY j.value, p.message_id`); err != nil {
			return err
		}
		// The rows written before (the sender's, a mention) are listed.
		if err := t.addRecipients(settled, func(int64) bool { return false }); err != nil {
			return err
		}
		if _, err := t.exec("Settle", `DELETE FROM user_messages_pending`); err != nil {
			return err
		}
	}
	t.settled, t.deferred = true, false
	return nil
}

// storePending writes the deferred recipients of each message.
func (t *tx) storePending(deferred map[int64][]int64) error {
	for _, id := range slices.Sorted(maps.Keys(deferred)) {
		if _, err := t.exec("CreateUserMessages", `INSERT INTO user_messages_pending (message_id, user_ids) VALUES (?, ?)`,
			id, jsonIDs(deferred[id])); err != nil {
			return err
		}
	}
	t.settled, t.deferred = false, true
	return nil
}

// settler moves pending rows into user_messages each time kick is
// signalled, until ctx ends. A failed settling leaves the rows pending
// for the next kick or the next write that touches users' rows.
func (s *Store) settler(ctx context.Context) {
	defer close(s.settlerDone)
	afterKicks(ctx, s.kick, settleDelay, func() { s.settleInTurns(ctx) })
}

// settleInTurns moves the rows pending now into user_messages in write
// transactions of about s.settleTurn rows each, in the table's order, so
// that the sends waiting for the writer go between them: under eight
// senders to a channel of a thousand, one transaction for all of them
// held the writer for 260–410 ms (BENCHMARKS.md). A last transaction
// lists the recipients and removes the pending rows. Meanwhile a user's
// moved rows are both stored and pending, which reads allow for (the
// stored row is the same, flagless, and the recipient lists name the
// moved users only at the end); a write that touches users' rows settles
// everything first (settle), after which the turns left find their
// messages gone and stop. Messages deferred meanwhile wait for the next
// run.
func (s *Store) settleInTurns(ctx context.Context) error {
	var (
		batch []int64           // the pending messages, ascending
		lists map[int64][]int64 // their pending recipients
	)
	err := s.Update(ctx, func(st storage.Tx) error {
		t := st.(*tx)
		if t.settled {
			return nil
		}
		var err error
		batch, lists, err = t.pendingLists()
		return err
	})
	if err != nil || len(batch) == 0 {
		return err
	}
	rows := settleOrder(batch, lists)
	turn := max(1, int(s.settleTurn.Load()))
	for start := 0; start <= len(rows); {
		end := min(start+turn, len(rows))
		for end < len(rows) && rows[end].user == rows[end-1].user {
			end++ // a user's rows in one turn, on their pages once
		}
		last := start == len(rows)
		gone := false
		err := s.Update(ctx, func(st storage.Tx) error {
			t := st.(*tx)
			var err error
			if gone, err = t.pendingGone(batch[0]); err != nil || gone {
				return err
			}
			wrote(t.rows, recipientRows, batch...)
			if last {
				return t.endSettling(batch, lists)
			}
			return t.storeSettled(rows[start:end])
		})
		if err != nil || gone || last {
			return err
		}
		start = end
	}
	return nil
}

// settledRow is a pending row to store.
type settledRow struct{ user, message int64 }

// settleOrder returns the rows of the messages' lists in the table's
// order: by user, then message.
func settleOrder(batch []int64, lists map[int64][]int64) []settledRow {
	n := 0
	for _, id := range batch {
		n += len(lists[id])
	}
	rows := make([]settledRow, 0, n)
	for _, id := range batch {
		for _, u := range lists[id] {
			rows = append(rows, settledRow{u, id})
		}
	}
	slices.SortFunc(rows, func(a, b settledRow) int {
		if a.user != b.user {
			return cmp.Compare(a.user, b.user)
		}
		return cmp.Compare(a.message, b.message)
	})
	return rows
}

// pendingLists reads the pending messages, ascending, with their lists.
func (t *tx) pendingLists() ([]int64, map[int64][]int64, error) {
	var ids []int64
	lists := map[int64][]int64{}
	err := t.query("Settle", `SELECT message_id, user_ids FROM user_messages_pending ORDER BY message_id`, func(sc scanner) error {
		var id int64
		var users string
		if err := sc.Scan(&id, &users); err != nil {
			return err
		}
		list, err := parseIDList(users)
		ids, lists[id] = append(ids, id), list
		return err
	})
	return ids, lists, err
}

// pendingGone reports whether the message no longer has pending rows: a
// write settled them all (and those of the messages pending with it).
func (t *tx) pendingGone(messageID int64) (bool, error) {
	var pending bool
	t.queries.Add(1)
	err := t.queryRowText(`SELECT EXISTS (SELECT 1 FROM user_messages_pending WHERE message_id = ?)`, messageID).Scan(&pending)
	return !pending, t.check("Settle", err)
}

// storeSettled stores rows, flagless, keeping a row already there with
// its flags (INSERT OR IGNORE, as settle), in statements of settleChunk
// rows and, for the rest, of the powers of two below it, so that a
// message to 200 is three statements, not 200. Bound values, not a JSON
// array: extracting each pair from JSON was a fifth of chatd's CPU under
// a big channel's sends.
func (t *tx) storeSettled(rows []settledRow) error {
	args := make([]any, 0, 2*settleChunk)
	for len(rows) > 0 {
		k := min(bits.Len(uint(len(rows)))-1, len(settleTexts)-1) // 2^k ≤ len(rows)
		n := 1 << k
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r.user, r.message)
		}
		if _, err := t.exec("Settle", settleTexts[k], args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// settleChunk is how many rows one statement of storeSettled inserts at
// most: settleTexts[k] inserts 2^k, up to it.
const settleChunk = 256

var settleTexts = func() []string {
	var out []string
	for n := 1; n <= settleChunk; n *= 2 {
		out = append(out, `INSERT OR IGNORE INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)`+
			strings.Repeat(", (?, ?, 0)", n-1))
	}
	return out
}()

// endSettling lists the settled messages' recipients and removes their
// pending rows.
func (t *tx) endSettling(batch []int64, lists map[int64][]int64) error {
	if err := t.addRecipients(lists, func(int64) bool { return false }); err != nil {
		return err
	}
	_, err := t.exec("Settle", `DELETE FROM user_messages_pending WHERE message_id IN (SELECT value FROM json_each(?))`, jsonIDs(batch))
	return err
}

// afterKicks calls fn delay after each signal on kick, until ctx ends:
// the signals that come meanwhile share the call.
func afterKicks(ctx context.Context, kick <-chan struct{}, delay time.Duration, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		fn()
	}
}

// kickSettler asks the settler to run, unless it is asked already.
func (s *Store) kickSettler() {
	if !s.autoSettle {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Settle moves every pending row into user_messages now rather than at the
// settler's next run, in a write transaction of its own. The store never
// needs it (reads count pending rows in, and the settler runs on its own);
// benchmarks that time a send with its rows call it. Anyone may call it;
// it returns the transaction's error.
func (s *Store) Settle(ctx context.Context) error {
	return s.Update(ctx, func(st storage.Tx) error { return st.(*tx).settle() })
}
