package sqlite

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/teamchat/chat/storage"
)

// What a read transaction does with the pending rows of its snapshot
// (fanout.go): the rows are counted in by the same functions whatever the
// query, over the backend's own reads of the stored rows.
//
// PostgreSQL keeps writing every row in the message's transaction: tried
// there (2026-11-28, bench/peer), deferring gave no more messages a second
// to the big channel (33 against 37) and cost reactions more than half
// their rate (252/s against 591/s), every write that touches users' rows
// running one more statement on a shared table under SERIALIZABLE.

// defaultDeferMin is the fewest flagless rows of one new message that are
// deferred: below it, the rows cost less than settling them.
const defaultDeferMin = 64

// settleDelay is how long the settler lets messages come before it
// moves their rows: the longer, the more messages share each user's page.
const settleDelay = 100 * time.Millisecond

// settleTurnRows is about how many rows the settler stores in one write
// transaction (settleInTurns): a few milliseconds of the writer.
const settleTurnRows = 4096

// pendingMessage is a message whose flagless rows are pending.
type pendingMessage struct {
	channelID int64
	users     []int64 // ascending
}

// has reports whether the user is among the message's pending rows.
func (p pendingMessage) has(userID int64) bool {
	_, found := slices.BinarySearch(p.users, userID)
	return found
}

// pendingRows are the pending rows a read transaction's snapshot holds, by
// message.
type pendingRows map[int64]pendingMessage

// deferRows takes out of rows the flagless rows of the messages true in
// fresh (channel messages the transaction created and wrote no row for yet),
// when a message has at least min of them and no user twice (which must
// fail as ErrExists). It returns the rows left and the deferred recipients
// by message, ascending, and removes every message of rows from fresh.
func deferRows(rows []storage.UserMessage, fresh map[int64]bool, min int) ([]storage.UserMessage, map[int64][]int64) {
	flagless := map[int64][]int64{}
	for _, r := range rows {
		if r.Flags == 0 && fresh[r.MessageID] {
			flagless[r.MessageID] = append(flagless[r.MessageID], r.UserID)
		}
	}
	for _, r := range rows {
		delete(fresh, r.MessageID)
	}
	deferred := map[int64][]int64{}
	for id, users := range flagless {
		if len(users) >= min && !repeatsUser(rows, id) {
			slices.Sort(users)
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

// of returns the pending messages the user received that keep selects,
// by channel.
func (p pendingRows) of(userID int64, keep func(id int64, pm pendingMessage) bool) map[int64][]int64 {
	out := map[int64][]int64{}
	for id, pm := range p {
		if pm.has(userID) && keep(id, pm) {
			out[pm.channelID] = append(out[pm.channelID], id)
		}
	}
	return out
}

// findMessages answers FindMessages for a reader with pending rows, given
// find, the backend's FindMessages over the stored rows: the messages f
// selects from the stored rows, and those of the pending rows the reader
// received, read through the channel's history and marked received
// without flags.
func (p pendingRows) findMessages(f storage.MessageFilter, find func(storage.MessageFilter) ([]storage.MessageRow, error)) ([]storage.MessageRow, error) {
	var ids map[int64]bool
	if f.IDs != nil {
		ids = make(map[int64]bool, len(f.IDs))
		for _, id := range f.IDs {
			ids[id] = true
		}
	}
	mine := p.of(f.UserID, func(id int64, pm pendingMessage) bool {
		return id >= f.MinID && (f.MaxID == 0 || id <= f.MaxID) && (f.ChannelID == 0 || pm.channelID == f.ChannelID) &&
			(ids == nil || ids[id]) && len(f.DirectUserIDs) == 0 && !f.Starred
	})
	out, err := find(f)
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
		rows, err := find(g)
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

// unreadMessages adds to out, the user's unread stored rows of the realm
// (newest first, at most limit when limit > 0), the user's pending
// messages of the realm, which are unread, keeping the newest limit.
func (p pendingRows) unreadMessages(realmID, userID int64, limit int, out []storage.UnreadMessage,
	find func(storage.MessageFilter) ([]storage.MessageRow, error)) ([]storage.UnreadMessage, error) {
	// The settler may have stored some of them already (settleInTurns).
	stored := make(map[int64]bool, len(out))
	for _, u := range out {
		stored[u.ID] = true
	}
	mine := p.of(userID, func(id int64, _ pendingMessage) bool { return !stored[id] })
	for _, channelID := range slices.Sorted(maps.Keys(mine)) {
		rows, err := find(storage.MessageFilter{RealmID: realmID, UserID: userID, ChannelID: channelID,
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
	slices.SortFunc(out, func(a, b storage.UnreadMessage) int { return cmp.Compare(b.ID, a.ID) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// recipients adds the message's pending rows to rows (sorted by user).
func (p pendingRows) recipients(rows []storage.UserMessage, messageID int64) []storage.UserMessage {
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

// readers adds the users of the messages' pending rows to readers, which
// it returns sorted, without repeats.
func (p pendingRows) readers(readers, messageIDs []int64) []int64 {
	for _, id := range messageIDs {
		readers = append(readers, p[id].users...)
	}
	slices.Sort(readers)
	return slices.Compact(readers)
}
