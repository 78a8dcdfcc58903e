package sqlite

import (
	"database/sql"
	"maps"
	"slices"
)

// A message's recipients are listed in message_recipients (migration
// 0026), one row a message, rather than found through an index of
// user_messages by message: a big channel's message wrote a thousand
// entries into that index. Every write of user_messages keeps the list in
// step here; reads by message go through it (MessageRecipients,
// MessageReaders, DeleteMessages). Rows still pending (fanout.go) join
// their message's list when they are settled.

// addRecipients adds users to the lists of their messages, by message;
// fresh says which messages the transaction created, whose lists do not
// exist yet.
func (t *tx) addRecipients(add map[int64][]int64, fresh func(id int64) bool) error {
	for _, id := range slices.Sorted(maps.Keys(add)) {
		users := slices.Clone(add[id])
		slices.Sort(users)
		if !fresh(id) {
			old, err := t.recipientList(id)
			if err != nil {
				return err
			}
			users = mergeIDs(old, users)
		}
		users = slices.Compact(users)
		if _, err := t.exec("Recipients", `INSERT INTO message_recipients (message_id, user_ids) VALUES (?, ?)
			ON CONFLICT (message_id) DO UPDATE SET user_ids = excluded.user_ids`, id, jsonIDs(users)); err != nil {
			return err
		}
	}
	return nil
}

// removeRecipients takes users out of the lists of messages, and removes
// the lists left empty.
func (t *tx) removeRecipients(users, messages []int64) error {
	gone := map[int64]bool{}
	for _, u := range users {
		gone[u] = true
	}
	for _, id := range messages {
		old, err := t.recipientList(id)
		if err != nil {
			return err
		}
		left := slices.DeleteFunc(slices.Clone(old), func(u int64) bool { return gone[u] })
		switch {
		case len(left) == len(old):
		case len(left) == 0:
			_, err = t.exec("Recipients", `DELETE FROM message_recipients WHERE message_id = ?`, id)
		default:
			_, err = t.exec("Recipients", `UPDATE message_recipients SET user_ids = ? WHERE message_id = ?`, jsonIDs(left), id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// recipientList returns the users listed for the message, ascending; none
// when it has no list.
func (t *tx) recipientList(id int64) ([]int64, error) {
	var list string
	t.queries.Add(1)
	err := t.queryRowText(`SELECT user_ids FROM message_recipients WHERE message_id = ?`, id).Scan(&list)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, t.check("Recipients", err)
	}
	return parseIDList(list)
}

// mergeIDs merges two ascending lists into one, ascending, keeping
// repeats.
func mergeIDs(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
