package postgres

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// A message to a channel of a thousand subscribers inserted a thousand
// rows in its transaction: about 19 ms of PostgreSQL's CPU a message, and
// eight senders to the channel made 80 messages a second. As on SQLite
// (see its fanout.go), a new channel message's flagless rows, when there
// are at least sqlcommon.DeferMin, are stored as one row of
// user_messages_pending, and the store's settler moves every pending row
// into user_messages in a transaction of its own, sqlcommon.SettleDelay
// after the commit, for all the messages that came meanwhile.
//
// Until then a write transaction that reads or writes users' rows moves
// the pending ones first (one statement, as the store cannot know whether
// another process left any), and a read transaction reads the pending rows
// of its snapshot once and counts them in (sqlcommon.Pending). Two
// transactions that move the same pending rows conflict, and the second
// runs again, finding none.

// unsettled makes the transaction's reads of user_messages whole: in a
// write transaction it moves the pending rows and returns nil; in a read
// transaction it returns the pending rows of its snapshot.
func (t *tx) unsettled() (sqlcommon.Pending, error) {
	if !t.ReadOnly {
		return nil, t.settle()
	}
	if t.pendingRead {
		return t.pending, nil
	}
	err := t.query("PendingRecipients", `SELECT p.message_id, pm.channel_id, p.user_ids
		FROM user_messages_pending AS p JOIN messages AS pm ON pm.id = p.message_id`, func(row sqlcommon.Scanner) error {
		var id int64
		var pm sqlcommon.PendingMessage
		if err := row.Scan(&id, &pm.ChannelID, &pm.Users); err != nil {
			return err
		}
		if t.pending == nil {
			t.pending = sqlcommon.Pending{}
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

// settle moves every pending row into user_messages, in the order of the
// table's key, once per transaction unless it defers rows again.
func (t *tx) settle() error {
	if t.settled {
		return nil
	}
	if _, err := t.exec("Settle", `WITH moved AS (DELETE FROM user_messages_pending RETURNING message_id, user_ids)
		INSERT INTO user_messages (user_id, message_id, flags)
		SELECT u, moved.message_id, 0 FROM moved, unnest(moved.user_ids) AS u ORDER BY u, moved.message_id`); err != nil {
		return err
	}
	t.settled, t.deferred = true, false
	return nil
}

// storePending writes the deferred recipients of each message.
func (t *tx) storePending(deferred map[int64][]int64) error {
	ids := slices.Sorted(maps.Keys(deferred))
	lists := make([][]int64, len(ids))
	for i, id := range ids {
		lists[i] = deferred[id]
	}
	for i, id := range ids {
		if _, err := t.exec("CreateUserMessages", `INSERT INTO user_messages_pending (message_id, user_ids) VALUES ($1, $2)`,
			id, lists[i]); err != nil {
			return err
		}
	}
	t.settled, t.deferred = false, true
	return nil
}

// settler moves pending rows into user_messages each time kick is
// signalled, sqlcommon.SettleDelay later, until ctx ends. A failed
// settling leaves the rows pending for the next kick or the next write
// that touches users' rows.
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
		case <-time.After(sqlcommon.SettleDelay):
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
