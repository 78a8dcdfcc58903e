package sqlite

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// A message to a channel of a thousand subscribers makes a thousand rows
// in user_messages, keyed by user: each row lands on a page of its own in
// the table and in its unread index, so one message dirtied about 2 000
// pages (8 MB of WAL) and the big channel's sends ran at a tenth of the
// small ones'. Written for many messages at once, the rows of each user
// share their page.
//
// So a write transaction that creates a new message with at least
// deferMin recipients whose rows carry no flag (the subscribers who are
// not mentioned) stores those recipients as one row of
// user_messages_pending instead, and the store's settler moves every
// pending row into user_messages in a write transaction of its own, soon
// after the commit, for all the messages that came meanwhile. The rows
// that carry flags (the sender's read, a mention) are written at once.
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

// defaultDeferMin is the fewest flagless rows of one new message that are
// deferred: below it, the rows cost less than the settling.
const defaultDeferMin = 64

// settleDelay is how long the settler lets messages come before it
// settles: the longer, the more messages share each user's page.
var settleDelay = 100 * time.Millisecond

// pendingMessage is a message whose flagless rows are pending.
type pendingMessage struct {
	channelID int64
	users     []int64 // ascending
}

func (p pendingMessage) has(userID int64) bool {
	_, found := slices.BinarySearch(p.users, userID)
	return found
}

// unsettled makes the transaction's reads of user_messages whole. In a
// write transaction it moves the pending rows into user_messages and
// returns nil. In a read transaction it returns the pending rows of its
// snapshot, read at its first call, for the caller to count in.
func (t *tx) unsettled() (map[int64]pendingMessage, error) {
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
			t.pending = map[int64]pendingMessage{}
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
	var ids []int64
	if err := t.query("Settle", `SELECT message_id FROM user_messages_pending`,
		sqlcommon.Into(&ids, sqlcommon.ScanID)); err != nil {
		return err
	}
	if len(ids) > 0 {
		wrote(t.rows, recipientRows, ids...)
		// In the order of the table's key, so that each user's page is
		// written once for all the messages.
		if _, err := t.exec("Settle", `INSERT INTO user_messages (user_id, message_id, flags)
			SELECT j.value, p.message_id, 0 FROM user_messages_pending AS p, json_each(p.user_ids) AS j
			ORDER BY j.value, p.message_id`); err != nil {
			return err
		}
		if _, err := t.exec("Settle", `DELETE FROM user_messages_pending`); err != nil {
			return err
		}
	}
	t.settled, t.deferred = true, false
	return nil
}

// deferRows takes out of rows the flagless
// rows of the channel messages this transaction created and wrote no row
// for yet,
// when a message has at least deferMin of them and no user twice (which
// must fail as ErrExists). It returns the rows left and the deferred
// recipients by message. Every message of rows stops being new.
func (t *tx) deferRows(rows []storage.UserMessage) ([]storage.UserMessage, map[int64][]int64) {
	flagless := map[int64][]int64{}
	for _, r := range rows {
		if r.Flags == 0 && t.fresh[r.MessageID] {
			flagless[r.MessageID] = append(flagless[r.MessageID], r.UserID)
		}
	}
	for _, r := range rows {
		delete(t.fresh, r.MessageID)
	}
	deferred := map[int64][]int64{}
	for id, users := range flagless {
		if len(users) >= t.deferMin && !repeatsUser(rows, id) {
			deferred[id] = users
		}
	}
	if len(deferred) == 0 {
		return rows, nil
	}
	left := make([]storage.UserMessage, 0, len(rows))
	for _, r := range rows {
		if r.Flags != 0 || deferred[r.MessageID] == nil {
			left = append(left, r)
		}
	}
	return left, deferred
}

// repeatsUser reports whether rows has two rows of one user for the
// message.
func repeatsUser(rows []storage.UserMessage, messageID int64) bool {
	seen := map[int64]bool{}
	for _, r := range rows {
		if r.MessageID == messageID {
			if seen[r.UserID] {
				return true
			}
			seen[r.UserID] = true
		}
	}
	return false
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

// pendingOf returns the pending messages of p that the user received, by
// channel, those that keep selects.
func pendingOf(p map[int64]pendingMessage, userID int64, keep func(id int64, pm pendingMessage) bool) map[int64][]int64 {
	out := map[int64][]int64{}
	for id, pm := range p {
		if pm.has(userID) && keep(id, pm) {
			out[pm.channelID] = append(out[pm.channelID], id)
		}
	}
	return out
}

// findWithPending is FindMessages for a reader with pending rows: the
// messages f selects from the stored rows, and those of the pending rows
// the reader received, read through the channel's history and marked
// received without flags.
func (t *tx) findWithPending(f storage.MessageFilter, p map[int64]pendingMessage) ([]storage.MessageRow, error) {
	var ids map[int64]bool
	if f.IDs != nil {
		ids = make(map[int64]bool, len(f.IDs))
		for _, id := range f.IDs {
			ids[id] = true
		}
	}
	mine := pendingOf(p, f.UserID, func(id int64, pm pendingMessage) bool {
		return id >= f.MinID && (f.MaxID == 0 || id <= f.MaxID) && (f.ChannelID == 0 || pm.channelID == f.ChannelID) &&
			(ids == nil || ids[id]) && len(f.DirectUserIDs) == 0 && !f.Starred
	})
	out, err := t.findMessages(f)
	if err != nil || len(mine) == 0 {
		return out, err
	}
	pending := map[int64]bool{}
	for _, list := range mine {
		for _, id := range list {
			pending[id] = true
		}
	}
	// A channel's history lists them as not received: they come again
	// below.
	out = slices.DeleteFunc(out, func(r storage.MessageRow) bool { return pending[r.Message.ID] })
	for _, channelID := range slices.Sorted(maps.Keys(mine)) {
		g := f
		g.ChannelID, g.ChannelHistory, g.IDs, g.Unread = channelID, true, mine[channelID], false
		rows, err := t.findMessages(g)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			r.Received, r.Flags = true, 0
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b storage.MessageRow) int {
		if f.Descending {
			return cmp.Compare(b.Message.ID, a.Message.ID)
		}
		return cmp.Compare(a.Message.ID, b.Message.ID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// unreadPending adds to out (sorted by descending ID) the user's pending
// messages of the realm, which are unread, keeping at most limit (none
// when limit < 0).
func (t *tx) unreadPending(realmID, userID int64, limit int, out []storage.UnreadMessage, p map[int64]pendingMessage) ([]storage.UnreadMessage, error) {
	mine := pendingOf(p, userID, func(int64, pendingMessage) bool { return true })
	for _, channelID := range slices.Sorted(maps.Keys(mine)) {
		rows, err := t.findMessages(storage.MessageFilter{RealmID: realmID, UserID: userID, ChannelID: channelID,
			ChannelHistory: true, IDs: mine[channelID], WithoutContent: true})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			m := r.Message
			out = append(out, storage.UnreadMessage{ID: m.ID, RecipientType: m.RecipientType, ChannelID: m.ChannelID,
				Topic: m.Topic, DirectUserIDs: m.DirectUserIDs})
		}
	}
	sortByID(out, true)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// withPending adds the pending recipients of the message to rows (sorted
// by user).
func withPending(rows []storage.UserMessage, messageID int64, p map[int64]pendingMessage) []storage.UserMessage {
	pm, ok := p[messageID]
	if !ok {
		return rows
	}
	for _, u := range pm.users {
		rows = append(rows, storage.UserMessage{UserID: u, MessageID: messageID})
	}
	slices.SortFunc(rows, func(a, b storage.UserMessage) int { return cmp.Compare(a.UserID, b.UserID) })
	return rows
}

// settler moves pending rows into user_messages each time kick is
// signalled, until ctx ends. A failed settling leaves the rows pending
// for the next kick or the next write that touches users' rows.
func (s *Store) settler(ctx context.Context) {
	defer close(s.settlerDone)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(settleDelay):
		}
		s.Update(ctx, func(st storage.Tx) error { return st.(*tx).settle() })
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
