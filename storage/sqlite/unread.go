package sqlite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/teamchat/chat/storage"
)

// The unread state reads tens of thousands of rows. Its queries answer in
// one row of aligned lists rather than one row each: stepping the rows
// through database/sql costs about three times as much in this pure-Go
// SQLite as the same values concatenated by the aggregates, which see the
// rows in the same order. A conversation is a channel message's topic or
// a direct message's participants (their JSON array), as JSON strings.
// The queries walk user_messages_unread, which the planner, lacking
// statistics, would pass over for the primary key and its read rows.

// qUnreadRows reads the IDs and flags of a user's newest unread rows.
const qUnreadRows = `SELECT count(*), coalesce(group_concat(message_id), ''), coalesce(group_concat(flags), '')
	FROM (SELECT message_id, flags FROM user_messages INDEXED BY user_messages_unread
		WHERE user_id = ? AND flags & 1 = 0 ORDER BY message_id DESC LIMIT ?)`

// qMessageRange reads the conversations of a realm's messages in a range
// of IDs, walking the table in order.
const qMessageRange = `SELECT count(*), coalesce(group_concat(id), ''), coalesce(group_concat(recipient_type), ''),
	coalesce(group_concat(channel_id), ''), json_group_array(CASE WHEN recipient_type = 1 THEN topic ELSE direct_user_ids END)
	FROM messages WHERE id BETWEEN ? AND ? AND realm_id = ?`

// qUnreadMessages reads a user's newest unread messages of a realm with
// their conversations, looking each message up.
const qUnreadMessages = `SELECT count(*), coalesce(group_concat(message_id), ''), coalesce(group_concat(flags), ''),
	coalesce(group_concat(recipient_type), ''), coalesce(group_concat(channel_id), ''), json_group_array(conversation)
	FROM (SELECT um.message_id, um.flags, m.recipient_type, m.channel_id,
		CASE WHEN m.recipient_type = 1 THEN m.topic ELSE m.direct_user_ids END AS conversation
		FROM user_messages AS um INDEXED BY user_messages_unread JOIN messages AS m ON m.id = um.message_id
		WHERE um.user_id = ? AND um.flags & 1 = 0 AND m.realm_id = ?
		ORDER BY um.message_id DESC LIMIT ?)`

// denseUnread is the largest ratio of the span of the unread rows' IDs to
// their number for which UnreadMessages reads the whole span of messages
// in order rather than looking each one up: a lookup costs about as much
// as reading a few rows in order.
const denseUnread = 4

// UnreadMessages counts in the user's pending rows (fanout.go).
func (t *tx) UnreadMessages(realmID, userID int64, limit int) ([]storage.UnreadMessage, error) {
	p, err := t.unsettled()
	if err != nil {
		return nil, err
	}
	out, err := t.unreadMessages(realmID, userID, limit)
	if err != nil || len(p) == 0 {
		return out, err
	}
	return p.unreadMessages(realmID, userID, limit, out, t.findMessages)
}

// unreadMessages reads the user's unread rows first. When their messages
// are dense among the messages of their span of IDs (a user who reads
// little of a busy organization, or everything of a quiet one), it reads
// the span in order; else, or when a row's message is not of the realm,
// it looks each message up.
func (t *tx) unreadMessages(realmID, userID int64, limit int) ([]storage.UnreadMessage, error) {
	if limit <= 0 {
		limit = -1 // no bound
	}
	t.queries.Add(1)
	var (
		n          int
		ids, flags string
	)
	if err := t.queryRowText(qUnreadRows, userID, limit).Scan(&n, &ids, &flags); err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	out := make([]storage.UnreadMessage, n)
	if err := firstErr(splitInts(ids, n, func(i int, v int64) { out[i].ID = v }),
		splitInts(flags, n, func(i int, v int64) { out[i].Flags = storage.MessageFlags(v) })); err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	if n == 0 {
		return out, nil
	}
	sortByID(out, true)
	if span := out[0].ID - out[n-1].ID + 1; span <= denseUnread*int64(n) {
		found, err := t.unreadFromRange(realmID, out)
		if err != nil || found {
			return out, err
		}
	}
	return t.unreadByLookup(realmID, userID, limit)
}

// unreadFromRange sets the conversations of out, which is sorted by
// descending ID, from the realm's messages of their span of IDs. It
// reports false when a message is not among them.
func (t *tx) unreadFromRange(realmID int64, out []storage.UnreadMessage) (bool, error) {
	t.queries.Add(1)
	var (
		n                       int
		ids, kinds, channels, c string
	)
	if err := t.queryRowText(qMessageRange, out[len(out)-1].ID, out[0].ID, realmID).Scan(&n, &ids, &kinds, &channels, &c); err != nil {
		return false, t.check("UnreadMessages", err)
	}
	span := make([]storage.UnreadMessage, n)
	if err := firstErr(splitInts(ids, n, func(i int, v int64) { span[i].ID = v }),
		setConversations(span, kinds, channels, c)); err != nil {
		return false, t.check("UnreadMessages", err)
	}
	sortByID(span, false)
	// One walk matches the two lists, from their highest IDs.
	j := len(span) - 1
	for i := range out {
		for j >= 0 && span[j].ID > out[i].ID {
			j--
		}
		if j < 0 || span[j].ID != out[i].ID {
			return false, nil
		}
		s := &span[j]
		out[i].RecipientType, out[i].ChannelID, out[i].Topic, out[i].DirectUserIDs = s.RecipientType, s.ChannelID, s.Topic, s.DirectUserIDs
		s.DirectUserIDs = nil // each message's list is its own
	}
	return true, nil
}

// unreadByLookup reads the user's unread messages of the realm, looking
// each message up.
func (t *tx) unreadByLookup(realmID, userID int64, limit int) ([]storage.UnreadMessage, error) {
	t.queries.Add(1)
	var (
		n                                int
		ids, flags, kinds, channels, cvs string
	)
	if err := t.queryRowText(qUnreadMessages, userID, realmID, limit).Scan(&n, &ids, &flags, &kinds, &channels, &cvs); err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	out := make([]storage.UnreadMessage, n)
	if err := firstErr(splitInts(ids, n, func(i int, v int64) { out[i].ID = v }),
		splitInts(flags, n, func(i int, v int64) { out[i].Flags = storage.MessageFlags(v) }),
		setConversations(out, kinds, channels, cvs)); err != nil {
		return nil, t.check("UnreadMessages", err)
	}
	sortByID(out, true)
	return out, nil
}

// setConversations sets the recipient type, channel and topic or
// participants of each message of ms from the aligned lists kinds and
// channels (integers separated by commas) and conversations (a JSON
// array of strings).
func setConversations(ms []storage.UnreadMessage, kinds, channels, conversations string) error {
	n := len(ms)
	cvs, err := splitStrings(conversations, n)
	if err := firstErr(splitInts(kinds, n, func(i int, v int64) { ms[i].RecipientType = int(v) }),
		splitInts(channels, n, func(i int, v int64) { ms[i].ChannelID = v }), err); err != nil {
		return err
	}
	// Participants repeat across a conversation's messages: each distinct
	// list is parsed once.
	direct := map[string][]int64{}
	for i := range ms {
		m, c := &ms[i], cvs[i]
		if m.RecipientType == storage.RecipientChannel {
			m.Topic = c
			continue
		}
		m.ChannelID = 0
		users, ok := direct[c]
		if !ok {
			if err := json.Unmarshal([]byte(c), &users); err != nil {
				return err
			}
			direct[c] = users
		}
		if len(users) > 0 {
			// Each message gets its own copy: returned values share nothing.
			m.DirectUserIDs = slices.Clone(users)
		}
	}
	return nil
}

// sortByID sorts ms by ID, descending when desc. The aggregates keep the
// order of the rows they read in practice, but SQL does not promise it.
func sortByID(ms []storage.UnreadMessage, desc bool) {
	order := func(a, b storage.UnreadMessage) int {
		switch {
		case a.ID == b.ID:
			return 0
		case (a.ID > b.ID) == desc:
			return -1
		}
		return 1
	}
	if !slices.IsSortedFunc(ms, order) {
		slices.SortFunc(ms, order)
	}
}

// firstErr returns the first error that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// splitInts calls set for each of the n integers of list, which are
// separated by commas.
func splitInts(list string, n int, set func(i int, v int64)) error {
	for i := range n {
		field, rest, found := strings.Cut(list, ",")
		if found == (i == n-1) {
			return fmt.Errorf("a list of %d integers: %.40q", n, list)
		}
		v, ok := digits(field)
		if !ok {
			var err error
			if v, err = strconv.ParseInt(field, 10, 64); err != nil {
				return err
			}
		}
		set(i, v)
		list = rest
	}
	return nil
}

// digits reads a non-negative integer of at most 18 decimal digits, the
// form of the IDs and flags in the lists, faster than strconv does.
func digits(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// splitStrings returns the n strings of the JSON array list. A string
// without escapes (most topics) is a part of list rather than a copy;
// one with escapes is decoded by itself.
func splitStrings(list string, n int) ([]string, error) {
	out := make([]string, 0, n)
	rest, ok := strings.CutPrefix(list, "[")
	for ok && len(out) < n {
		if len(out) > 0 {
			rest, ok = strings.CutPrefix(rest, ",")
		}
		if rest, ok = strings.CutPrefix(rest, `"`); !ok {
			break
		}
		end := strings.IndexByte(rest, '"')
		for end > 0 && escaped(rest, end) {
			next := strings.IndexByte(rest[end+1:], '"')
			if next < 0 {
				end = -1
				break
			}
			end += 1 + next
		}
		if end < 0 {
			ok = false
			break
		}
		s := rest[:end]
		if strings.IndexByte(s, '\\') >= 0 {
			if err := json.Unmarshal([]byte(`"`+s+`"`), &s); err != nil {
				return nil, err
			}
		}
		out, rest = append(out, s), rest[end+1:]
	}
	if !ok || len(out) != n || rest != "]" {
		return nil, fmt.Errorf("a list of %d strings: %.40q", n, list)
	}
	return out, nil
}

// escaped reports whether the quote at s[i] follows an odd number of
// backslashes, and so belongs to the string.
func escaped(s string, i int) bool {
	n := 0
	for i > 0 && s[i-1] == '\\' {
		n, i = n+1, i-1
	}
	return n%2 == 1
}
