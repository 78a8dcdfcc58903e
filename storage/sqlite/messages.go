package sqlite

import (
	"cmp"
	"database/sql"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Messages, the users' rows for them, and reactions. The rows of the
// recipients of messages are written many per statement; FindMessages is
// one query whatever the narrow's backend part.

func editedNanos(m *storage.MessageRecord) (int64, error) {
	if m.EditedAt.IsZero() {
		return 0, nil
	}
	return sqlcommon.ToNanos(m.EditedAt)
}

func (t *tx) CreateMessages(ms []*storage.MessageRecord) error {
	for _, m := range ms {
		sent, err := sqlcommon.ToNanos(m.DateSent)
		if err != nil {
			return err
		}
		edited, err := editedNanos(m)
		if err != nil {
			return err
		}
		users := m.DirectUserIDs
		if users == nil {
			users = []int64{}
		}
		res, err := t.exec("CreateMessages", `INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id,
			direct_user_ids, topic, topic_key, content, rendered_content, date_sent, client, edited_at, has_link,
			has_image, has_attachment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.RealmID, m.SenderID, int64(m.RecipientType), m.ChannelID, jsonIDs(users), m.Topic,
			storage.TopicKey(m.Topic), m.Content, m.RenderedContent, sent, m.Client, edited, b2i(m.HasLink),
			b2i(m.HasImage), b2i(m.HasAttachment))
		if err != nil {
			return err
		}
		if m.ID, err = res.LastInsertId(); err != nil {
			return t.check("CreateMessages", err)
		}
		wrote(t.rows, messageRows, m.ID)
		if t.fresh == nil {
			t.fresh = map[int64]bool{}
		}
		t.fresh[m.ID] = m.RecipientType == storage.RecipientChannel
	}
	return nil
}

func (t *tx) Message(id int64) (storage.MessageRecord, error) {
	if m, ok := cached(t.rows, messageRows, id); ok {
		return m, nil
	}
	var out []storage.MessageRecord
	err := t.query("Message", `SELECT `+sqlcommon.MessageColumns+` FROM messages AS m WHERE m.id = ?`, func(sc scanner) error {
		var m storage.MessageRecord
		if err := sqlcommon.ScanMessage(forms, sc, &m); err != nil {
			return err
		}
		out = append(out, m)
		return nil
	}, id)
	if err != nil {
		return storage.MessageRecord{}, err
	}
	if len(out) == 0 {
		return storage.MessageRecord{}, storage.ErrNotFound
	}
	keep(t.rows, messageRows, id, out[0])
	return out[0], nil
}

func (t *tx) UpdateMessage(m storage.MessageRecord) error {
	edited, err := editedNanos(&m)
	if err != nil {
		return err
	}
	wrote(t.rows, messageRows, m.ID)
	res, err := t.exec("UpdateMessage", `UPDATE messages SET topic = ?, topic_key = ?, content = ?,
		rendered_content = ?, edited_at = ?, has_link = ?, has_image = ?, has_attachment = ?,
		channel_id = CASE WHEN recipient_type = 1 THEN ? ELSE channel_id END WHERE id = ?`,
		m.Topic, storage.TopicKey(m.Topic), m.Content, m.RenderedContent, edited, b2i(m.HasLink), b2i(m.HasImage),
		b2i(m.HasAttachment), m.ChannelID, m.ID)
	if err != nil {
		return err
	}
	return t.affected("UpdateMessage", res)
}

var _ storage.MessageMoverTx = (*tx)(nil)

// moveBatch is how many messages one statement of MoveMessages moves.
const moveBatch = 1000

func (t *tx) MoveMessages(ids []int64, channelID int64, topic string, editedAt time.Time) error {
	edited, err := sqlcommon.ToNanos(editedAt)
	if err != nil {
		return err
	}
	for batch := range slices.Chunk(ids, moveBatch) {
		wrote(t.rows, messageRows, batch...)
		if _, err := t.exec("MoveMessages", `UPDATE messages SET channel_id = ?, topic = ?, topic_key = ?, edited_at = ?
			WHERE id IN (SELECT value FROM json_each(?)) AND recipient_type = 1`,
			channelID, topic, storage.TopicKey(topic), edited, jsonIDs(batch)); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) TopicMessageIDs(channelID int64, key string, limit int) ([]int64, error) {
	out := []int64{}
	err := t.query("TopicMessageIDs", `SELECT id FROM messages WHERE channel_id = ? AND topic_key = ?
		AND recipient_type = 1 ORDER BY id DESC LIMIT ?`, func(sc scanner) error {
		var id int64
		err := sc.Scan(&id)
		out = append(out, id)
		return err
	}, channelID, key, limit)
	return out, err
}

// DeleteMessages removes the messages and their users' rows; their
// reactions, recipient lists, pending rows and search entries go with
// them (ON DELETE CASCADE, triggers). The users' rows have no foreign key
// (migration 0025).
func (t *tx) DeleteMessages(ids []int64) error {
	if len(ids) == 0 {
		return t.Writable()
	}
	// The settler may have stored some of a pending message's rows
	// without listing them yet (settleInTurns).
	if err := t.settle(); err != nil {
		return err
	}
	wrote(t.rows, messageRows, ids...)
	wrote(t.rows, recipientRows, ids...)
	list := jsonIDs(ids)
	// The messages' rows, found through their lists of recipients; the
	// lists and the pending rows go with the messages.
	if _, err := t.exec("DeleteMessages", `DELETE FROM user_messages WHERE (user_id, message_id) IN
		(SELECT j.value, r.message_id FROM message_recipients AS r, json_each(r.user_ids) AS j
			WHERE r.message_id IN (SELECT value FROM json_each(?)))`, list); err != nil {
		return err
	}
	_, err := t.exec("DeleteMessages", `DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))`, list)
	return err
}

func (t *tx) OldestChannelMessageID(channelID int64) (int64, error) {
	var id sql.NullInt64
	t.queries.Add(1)
	err := t.queryRowText(`SELECT min(id) FROM messages WHERE channel_id = ? AND recipient_type = 1`,
		channelID).Scan(&id)
	if err != nil {
		return 0, t.check("OldestChannelMessageID", err)
	}
	return id.Int64, nil
}

// userMessageBatch is the number of rows one insert of user messages
// writes: 192 parameters.
const userMessageBatch = 64

// insertUserMessages[n-1] inserts n rows. Each length is one text,
// prepared once.
var insertUserMessages = func() (texts [userMessageBatch]string) {
	for i := range texts {
		texts[i] = `INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)` +
			strings.Repeat(`, (?, ?, ?)`, i)
	}
	return texts
}()

// CreateUserMessages defers the flagless rows of a new message to many
// users (fanout.go) and inserts the others userMessageBatch per statement
// (the last statement takes the rest), in the order of the table's key
// (user, message): inserting them in key order writes each B-tree page
// once instead of jumping between users' pages. When a statement fails,
// the rows of the statements before it are deleted, so that the call
// stores none.
func (t *tx) CreateUserMessages(rows []storage.UserMessage) error {
	if err := t.Writable(); err != nil || len(rows) == 0 {
		return err
	}
	messages := map[int64]bool{} // true for those the transaction created
	fresh := true
	for _, r := range rows {
		_, isNew := t.fresh[r.MessageID]
		messages[r.MessageID] = isNew
		fresh = fresh && isNew
	}
	// Rows of a message that is not new may meet pending ones.
	if !fresh {
		if err := t.settle(); err != nil {
			return err
		}
	}
	wrote(t.rows, recipientRows, slices.Collect(maps.Keys(messages))...)
	rows, deferred := deferRows(rows, t.fresh, t.deferMin)
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, func(a, b storage.UserMessage) int {
		if c := cmp.Compare(a.UserID, b.UserID); c != 0 {
			return c
		}
		return cmp.Compare(a.MessageID, b.MessageID)
	})
	args := make([]any, 0, 3*userMessageBatch)
	done := 0
	var err error
	for err == nil && done < len(sorted) {
		args = args[:0]
		n := min(len(sorted)-done, userMessageBatch)
		for _, r := range sorted[done : done+n] {
			args = append(args, r.UserID, r.MessageID, int64(r.Flags))
		}
		if _, err = t.exec("CreateUserMessages", insertUserMessages[n-1], args...); err == nil {
			done += n
		}
	}
	if err == nil && len(sorted) > 0 {
		added := map[int64][]int64{}
		for _, r := range sorted {
			added[r.MessageID] = append(added[r.MessageID], r.UserID)
		}
		err = t.addRecipients(added, func(id int64) bool { return messages[id] })
	}
	if err == nil && len(deferred) > 0 {
		err = t.storePending(deferred)
	}
	if err != nil && t.Failed == nil {
		for _, r := range sorted[:done] {
			if _, delErr := t.exec("CreateUserMessages", `DELETE FROM user_messages WHERE user_id = ? AND message_id = ?`,
				r.UserID, r.MessageID); delErr != nil {
				return delErr
			}
		}
	}
	return err
}

func (t *tx) DeleteUserMessages(userIDs, messageIDs []int64) error {
	if err := t.Writable(); err != nil || len(userIDs) == 0 || len(messageIDs) == 0 {
		return err
	}
	if err := t.settle(); err != nil {
		return err
	}
	wrote(t.rows, recipientRows, messageIDs...)
	_, err := t.exec("DeleteUserMessages", `DELETE FROM user_messages
		WHERE user_id IN (SELECT value FROM json_each(?)) AND message_id IN (SELECT value FROM json_each(?))`,
		jsonIDs(userIDs), jsonIDs(messageIDs))
	if err != nil {
		return err
	}
	return t.removeRecipients(userIDs, messageIDs)
}

func (t *tx) MessageReaders(messageIDs []int64) ([]int64, error) {
	out := []int64{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	p, err := t.unsettled()
	if err != nil {
		return nil, err
	}
	if len(messageIDs) == 1 {
		// A reaction's audience: the list as stored, ascending, without
		// the DISTINCT sort that SQLite runs for several.
		list, err := t.recipientList(messageIDs[0])
		if err != nil {
			return nil, err
		}
		return p.readers(append(out, list...), messageIDs), nil
	}
	err = t.query("MessageReaders", `SELECT DISTINCT j.value FROM message_recipients AS r, json_each(r.user_ids) AS j
		WHERE r.message_id IN (SELECT value FROM json_each(?)) ORDER BY j.value`, func(sc scanner) error {
		var id int64
		err := sc.Scan(&id)
		out = append(out, id)
		return err
	}, jsonIDs(messageIDs))
	return p.readers(out, messageIDs), err
}

func (t *tx) UserMessage(userID, messageID int64) (storage.UserMessage, error) {
	p, err := t.unsettled()
	if err != nil {
		return storage.UserMessage{}, err
	}
	if p[messageID].has(userID) {
		return storage.UserMessage{UserID: userID, MessageID: messageID}, nil
	}
	if rows, ok := cached(t.rows, recipientRows, messageID); ok {
		i, found := slices.BinarySearchFunc(rows, userID, func(r storage.UserMessage, id int64) int { return cmp.Compare(r.UserID, id) })
		if !found {
			return storage.UserMessage{}, storage.ErrNotFound
		}
		return rows[i], nil
	}
	var flags int64
	t.queries.Add(1)
	err = t.queryRowText(`SELECT flags FROM user_messages WHERE user_id = ? AND message_id = ?`,
		userID, messageID).Scan(&flags)
	if err == sql.ErrNoRows {
		return storage.UserMessage{}, storage.ErrNotFound
	}
	if err != nil {
		return storage.UserMessage{}, t.check("UserMessage", err)
	}
	return storage.UserMessage{UserID: userID, MessageID: messageID, Flags: storage.MessageFlags(flags)}, nil
}

func (t *tx) MessageRecipients(messageID int64) ([]storage.UserMessage, error) {
	p, err := t.unsettled()
	if err != nil {
		return nil, err
	}
	if rows, ok := cached(t.rows, recipientRows, messageID); ok {
		return rows, nil
	}
	out := []storage.UserMessage{}
	err = t.query("MessageRecipients", `SELECT um.user_id, um.flags
		FROM message_recipients AS r CROSS JOIN json_each(r.user_ids) AS j
			CROSS JOIN user_messages AS um ON um.user_id = j.value AND um.message_id = r.message_id
		WHERE r.message_id = ?`,
		func(sc scanner) error {
			r := storage.UserMessage{MessageID: messageID}
			var flags int64
			err := sc.Scan(&r.UserID, &flags)
			r.Flags = storage.MessageFlags(flags)
			out = append(out, r)
			return err
		}, messageID)
	if err == nil {
		// In the list's order, which is the users'; sorted in case.
		slices.SortFunc(out, func(a, b storage.UserMessage) int { return cmp.Compare(a.UserID, b.UserID) })
		keep(t.rows, recipientRows, messageID, out)
	}
	return p.recipients(out, messageID), err
}

// ftsQuery is the FTS5 query that matches every word: each quoted, which
// is safe because words are letters and digits only.
func ftsQuery(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(quoted, " ")
}

// FindMessages counts in the reader's pending rows (fanout.go).
func (t *tx) FindMessages(f storage.MessageFilter) ([]storage.MessageRow, error) {
	if f.UserID != 0 {
		p, err := t.unsettled()
		if err != nil {
			return nil, err
		}
		if len(p) > 0 {
			return p.findMessages(f, t.findMessages)
		}
	}
	return t.findMessages(f)
}

func (t *tx) findMessages(f storage.MessageFilter) ([]storage.MessageRow, error) {
	cols := sqlcommon.MessageColumns
	if f.WithoutContent {
		cols = sqlcommon.MessageColumnsWithoutContent
	}
	var q strings.Builder
	var args []any
	maxID := f.MaxID
	if maxID == 0 {
		maxID = 1<<63 - 1
	}
	history := f.ChannelHistory && f.ChannelID != 0
	search := len(f.Search) > 0
	// direct is the conversation's key, direct_user_ids as the store
	// writes it.
	var direct string
	if len(f.DirectUserIDs) > 0 {
		direct = jsonIDs(storage.DirectUserSet(f.DirectUserIDs))
	}
	// byPeople names the index of the sender's or the conversation's
	// messages, and people its condition: when set (and no search words),
	// they drive the query, as a quiet channel's do.
	var byPeople, people string
	var peopleArgs []any
	switch {
	case direct != "":
		byPeople, people = "messages_direct", `m.realm_id = ? AND m.recipient_type = 2 AND m.direct_user_ids = ?`
		peopleArgs = []any{f.RealmID, direct}
	case f.SenderID != 0:
		byPeople, people = "messages_sender", `m.realm_id = ? AND m.sender_id = ?`
		peopleArgs = []any{f.RealmID, f.SenderID}
	}
	// channelDone says the case below has written the channel's condition.
	channelDone := false
	// order is the column whose index gives the order, so that a LIMIT
	// stops early: the search index's when searching (it yields matches
	// in ID order, newest first when asked), else that of the table that
	// drives the query.
	var order string
	switch {
	case search && history:
		// The matches in order, each looked up in the channel, with the
		// reader's row if any.
		q.WriteString(`SELECT ` + cols + `, coalesce(um.flags, 0), um.user_id IS NOT NULL
			FROM messages_fts CROSS JOIN messages AS m
			LEFT JOIN user_messages AS um ON um.message_id = m.id AND um.user_id = ?
			WHERE messages_fts MATCH ? AND messages_fts.rowid BETWEEN ? AND ? AND m.id = messages_fts.rowid
			AND m.channel_id = ? AND m.recipient_type = 1 AND m.realm_id = ?`)
		args = append(args, f.UserID, ftsQuery(f.Search), f.MinID, maxID, f.ChannelID, f.RealmID)
		order, channelDone = "messages_fts.rowid", true
	case search:
		// The matches in order, each kept when the reader has a row.
		q.WriteString(`SELECT ` + cols + `, um.flags, 1
			FROM messages_fts CROSS JOIN user_messages AS um CROSS JOIN messages AS m
			WHERE messages_fts MATCH ? AND messages_fts.rowid BETWEEN ? AND ?
			AND um.user_id = ? AND um.message_id = messages_fts.rowid AND m.id = messages_fts.rowid AND m.realm_id = ?`)
		args = append(args, ftsQuery(f.Search), f.MinID, maxID, f.UserID, f.RealmID)
		order = "messages_fts.rowid"
	case history && byPeople != "":
		// The sender's messages in order, each kept in the channel, with
		// the reader's row if any (a conversation has no channel: none).
		q.WriteString(`SELECT ` + cols + `, coalesce(um.flags, 0), um.user_id IS NOT NULL
			FROM messages AS m INDEXED BY ` + byPeople + `
			LEFT JOIN user_messages AS um ON um.message_id = m.id AND um.user_id = ?
			WHERE ` + people + ` AND m.id BETWEEN ? AND ? AND m.channel_id = ? AND m.recipient_type = 1`)
		args = append(append(append(args, f.UserID), peopleArgs...), f.MinID, maxID, f.ChannelID)
		order, channelDone = "m.id", true
	case history:
		// Every message of the channel, with the reader's row if any.
		q.WriteString(`SELECT ` + cols + `, coalesce(um.flags, 0), um.user_id IS NOT NULL
			FROM messages AS m LEFT JOIN user_messages AS um ON um.message_id = m.id AND um.user_id = ?
			WHERE m.channel_id = ? AND m.recipient_type = 1 AND m.realm_id = ? AND m.id BETWEEN ? AND ?`)
		args = append(args, f.UserID, f.ChannelID, f.RealmID, f.MinID, maxID)
		order, channelDone = "m.id", true
	case byPeople != "":
		// The conversation's or the sender's messages drive the query, in
		// the order of their index, each kept when the reader has a row: a
		// rare sender's newest messages cost their own reads, however long
		// the reader's history.
		q.WriteString(`SELECT ` + cols + `, um.flags, 1
			FROM messages AS m INDEXED BY ` + byPeople + ` CROSS JOIN user_messages AS um
			WHERE ` + people + ` AND m.id BETWEEN ? AND ? AND um.user_id = ? AND um.message_id = m.id`)
		args = append(append(args, peopleArgs...), f.MinID, maxID, f.UserID)
		order = "m.id"
	case f.ChannelID != 0:
		// The channel's messages drive the query, in the order of the
		// index on (channel, topic, ID) or (channel, ID), each kept when
		// the reader has a row: a narrow to a quiet channel or topic
		// reads only its messages.
		q.WriteString(`SELECT ` + cols + `, um.flags, 1
			FROM messages AS m CROSS JOIN user_messages AS um
			WHERE m.channel_id = ? AND m.recipient_type = 1 AND m.realm_id = ? AND m.id BETWEEN ? AND ?
			AND um.user_id = ? AND um.message_id = m.id`)
		args = append(args, f.ChannelID, f.RealmID, f.MinID, maxID, f.UserID)
		order, channelDone = "m.id", true
	default:
		// The reader's rows drive the query (primary key user, message), or
		// only the starred or unread ones, by their partial index: without
		// statistics the planner would take the primary key and read the
		// user's every row.
		from := "user_messages AS um"
		switch {
		case f.Starred:
			from += " INDEXED BY user_messages_starred"
		case f.Unread:
			from += " INDEXED BY user_messages_unread"
		}
		q.WriteString(`SELECT ` + cols + `, um.flags, 1
			FROM ` + from + ` JOIN messages AS m ON m.id = um.message_id
			WHERE um.user_id = ? AND um.message_id BETWEEN ? AND ? AND m.realm_id = ?`)
		args = append(args, f.UserID, f.MinID, maxID, f.RealmID)
		order = "um.message_id"
	}
	if f.ChannelID != 0 && !channelDone {
		q.WriteString(` AND m.channel_id = ? AND m.recipient_type = 1`)
		args = append(args, f.ChannelID)
	}
	// The conditions on people not written above (repeating one is
	// harmless).
	if f.SenderID != 0 {
		q.WriteString(` AND m.sender_id = ?`)
		args = append(args, f.SenderID)
	}
	if direct != "" {
		q.WriteString(` AND m.recipient_type = 2 AND m.direct_user_ids = ?`)
		args = append(args, direct)
	}
	if f.Unread {
		q.WriteString(` AND um.user_id IS NOT NULL AND um.flags & 1 = 0`)
	}
	if f.Starred {
		q.WriteString(` AND um.flags & 2 != 0`)
	}
	if f.TopicKey != nil {
		q.WriteString(` AND m.topic_key = ? AND m.recipient_type = 1`)
		args = append(args, *f.TopicKey)
	}
	if f.IDs != nil {
		q.WriteString(` AND m.id IN (SELECT value FROM json_each(?))`)
		args = append(args, jsonIDs(f.IDs))
	}
	q.WriteString(` ORDER BY ` + order)
	if f.Descending {
		q.WriteString(` DESC`)
	}
	limit := f.Limit
	if limit == 0 {
		limit = -1
	}
	q.WriteString(` LIMIT ?`)
	args = append(args, limit)
	out := []storage.MessageRow{}
	err := t.query("FindMessages", q.String(), func(sc scanner) error {
		var r storage.MessageRow
		var flags, received int64
		if err := sqlcommon.ScanMessage(forms, sc, &r.Message, &flags, &received); err != nil {
			return err
		}
		r.Flags, r.Received = storage.MessageFlags(flags), received != 0
		out = append(out, r)
		return nil
	}, args...)
	return out, err
}

func (t *tx) CreateReaction(r storage.Reaction) error {
	_, err := t.exec("CreateReaction", `INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type)
		VALUES (?, ?, ?, ?, ?)`, r.MessageID, r.UserID, r.EmojiName, r.EmojiCode, string(r.ReactionType))
	return err
}

func (t *tx) DeleteReaction(r storage.Reaction) error {
	res, err := t.exec("DeleteReaction", `DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND emoji_code = ?
		AND reaction_type = ?`, r.MessageID, r.UserID, r.EmojiCode, string(r.ReactionType))
	if err != nil {
		return err
	}
	return t.affected("DeleteReaction", res)
}

func (t *tx) Reactions(messageIDs []int64) ([]storage.Reaction, error) {
	out := []storage.Reaction{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	scan := func(sc scanner) error {
		var r storage.Reaction
		var typ string
		err := sc.Scan(&r.MessageID, &r.UserID, &r.EmojiName, &r.EmojiCode, &typ)
		r.ReactionType = storage.ReactionType(typ)
		out = append(out, r)
		return err
	}
	// One message, the case of every reaction write, needs no JSON list.
	if len(messageIDs) == 1 {
		err := t.query("Reactions", `SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
			WHERE message_id = ? ORDER BY id`, scan, messageIDs[0])
		return out, err
	}
	err := t.query("Reactions", `SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
		WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, id`, scan, jsonIDs(messageIDs))
	return out, err
}

// UpdateUserMessageFlags writes only the rows whose flags change, and
// notes the messages' recipients as written for the row cache.
var _ storage.ReadMarkerTx = (*tx)(nil)

func (t *tx) MarkRead(userID int64, limit int) ([]int64, error) {
	if err := t.settle(); err != nil {
		return nil, err
	}
	changed := []int64{}
	err := t.query("MarkRead", `UPDATE user_messages SET flags = flags | 1
		WHERE user_id = ?1 AND message_id IN (SELECT message_id FROM user_messages
			WHERE user_id = ?1 AND flags & 1 = 0 ORDER BY message_id LIMIT ?2)
		RETURNING message_id`, sqlcommon.Into(&changed, sqlcommon.ScanID), userID, limit)
	wrote(t.rows, recipientRows, changed...)
	slices.Sort(changed)
	return changed, err
}

func (t *tx) UpdateUserMessageFlags(userID int64, messageIDs []int64, set, clear storage.MessageFlags) ([]int64, error) {
	if err := t.settle(); err != nil {
		return nil, err
	}
	changed := []int64{}
	if len(messageIDs) == 0 {
		return changed, nil
	}
	wrote(t.rows, recipientRows, messageIDs...)
	err := t.query("UpdateUserMessageFlags", `UPDATE user_messages SET flags = (flags | ?1) & ~?2
		WHERE user_id = ?3 AND message_id IN (SELECT value FROM json_each(?4)) AND flags != (flags | ?1) & ~?2
		RETURNING message_id`, sqlcommon.Into(&changed, sqlcommon.ScanID), int64(set), int64(clear), userID, jsonIDs(messageIDs))
	slices.Sort(changed)
	return changed, err
}
