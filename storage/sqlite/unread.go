package sqlite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// qUnreadMessages reads a user's unread messages as one row of aligned
// lists rather than one row each: stepping tens of thousands of rows
// through database/sql costs about three times as much in this pure-Go
// SQLite as the same values concatenated by the aggregates, which see the
// rows in the same order. The conversation is a channel message's topic
// or a direct message's participants (their JSON array), as JSON strings.
// The inner query walks user_messages_unread, which the planner, lacking
// statistics, would pass over for the primary key and its read rows.
const qUnreadMessages = `SELECT count(*), coalesce(group_concat(message_id), ''), coalesce(group_concat(flags), ''),
	coalesce(group_concat(recipient_type), ''), coalesce(group_concat(channel_id), ''), json_group_array(conversation)
	FROM (SELECT um.message_id, um.flags, m.recipient_type, m.channel_id,
		CASE WHEN m.recipient_type = 1 THEN m.topic ELSE m.direct_user_ids END AS conversation
		FROM user_messages AS um INDEXED BY user_messages_unread JOIN messages AS m ON m.id = um.message_id
		WHERE um.user_id = ? AND um.flags & 1 = 0 AND m.realm_id = ?
		ORDER BY um.message_id DESC LIMIT ?)`

func (t *tx) UnreadMessages(realmID, userID int64, limit int) ([]storage.UnreadMessage, error) {
	if limit <= 0 {
		limit = -1 // no bound
	}
	t.queries.Add(1)
	var (
		n                                int
		ids, flags, kinds, channels, cvs string
	)
	if err := t.queryRowText(qUnreadMessages, userID, realmID, limit).Scan(&n, &ids, &flags, &kinds, &channels, &cvs); err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	out := make([]storage.UnreadMessage, n)
	var conversations []string
	err := splitInts(ids, n, func(i int, v int64) { out[i].ID = v })
	if err == nil {
		err = splitInts(flags, n, func(i int, v int64) { out[i].Flags = storage.MessageFlags(v) })
	}
	if err == nil {
		err = splitInts(kinds, n, func(i int, v int64) { out[i].RecipientType = int(v) })
	}
	if err == nil {
		err = splitInts(channels, n, func(i int, v int64) { out[i].ChannelID = v })
	}
	if err == nil {
		err = json.Unmarshal([]byte(cvs), &conversations)
	}
	if err == nil && len(conversations) != n {
		err = fmt.Errorf("%d conversations for %d messages", len(conversations), n)
	}
	if err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	// Participants repeat across a conversation's messages: each distinct
	// list is parsed once.
	direct := map[string][]int64{}
	for i := range out {
		m, c := &out[i], conversations[i]
		if m.RecipientType == storage.RecipientChannel {
			m.Topic = c
			continue
		}
		m.ChannelID = 0
		users, ok := direct[c]
		if !ok {
			if err := json.Unmarshal([]byte(c), &users); err != nil {
				return nil, t.check("UnreadMessages", err)
			}
			direct[c] = users
		}
		if len(users) > 0 {
			// Each message gets its own copy: returned values share nothing.
			m.DirectUserIDs = slices.Clone(users)
		}
	}
	// The aggregates keep the inner query's order in practice, but SQL
	// does not promise it; the answer does.
	if !slices.IsSortedFunc(out, func(a, b storage.UnreadMessage) int { return compareDesc(a.ID, b.ID) }) {
		slices.SortFunc(out, func(a, b storage.UnreadMessage) int { return compareDesc(a.ID, b.ID) })
	}
	return out, nil
}

// compareDesc orders integers from the highest.
func compareDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// splitInts calls set for each of the n integers of list, which are
// separated by commas.
func splitInts(list string, n int, set func(i int, v int64)) error {
	for i := range n {
		field, rest, found := strings.Cut(list, ",")
		if found == (i == n-1) {
			return fmt.Errorf("a list of %d integers: %.40q", n, list)
		}
		v, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return err
		}
		set(i, v)
		list = rest
	}
	return nil
}
