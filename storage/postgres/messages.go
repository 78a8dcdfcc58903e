package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// Messages, the users' rows for them, and reactions. The rows of all the
// recipients of a message go in one INSERT ... SELECT FROM unnest;
// FindMessages is one query whatever the narrow's backend part.
//
// Search matches the words of storage.SearchWords, which the Go code computes
// and stores with each message (search_words, a text array under a GIN
// index): a message matches when its words contain all the words searched,
// exactly as storage.SearchMatches decides.

// maxIndexedWord is the length in bytes of the longest word stored as
// itself in search_words. A longer one is stored as a digest (see
// indexWord), because a GIN index entry must fit in a third of a page and a
// message may be one long word.
const maxIndexedWord = 64

// indexWord returns the search_words form of a word of storage.SearchWords:
// the word, or for a long one "#" and the hex SHA-256 of it, which no word
// can equal since words are letters and digits.
func indexWord(w string) string {
	if len(w) <= maxIndexedWord {
		return w
	}
	sum := sha256.Sum256([]byte(w))
	return "#" + hex.EncodeToString(sum[:])
}

// indexWords returns the search_words form of words.
func indexWords(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = indexWord(w)
	}
	return out
}

// searchWords returns the search_words of a message: the distinct words of
// its topic and content. The space between them keeps a word from running
// from one into the other.
func searchWords(m *storage.MessageRecord) []string {
	return indexWords(storage.SearchWords(m.Topic + " " + m.Content))
}

// CreateMessages inserts the messages in one round trip. Messages have no
// uniqueness rule to break, so the batch is not guarded.
func (t *tx) CreateMessages(ms []*storage.MessageRecord) error {
	args := make([][]any, len(ms))
	for i, m := range ms {
		sent, err := sqlcommon.ToNanos(m.DateSent)
		if err != nil {
			return err
		}
		edited, err := sqlcommon.ToNanos(m.EditedAt)
		if err != nil {
			return err
		}
		args[i] = []any{m.RealmID, m.SenderID, int64(m.RecipientType), m.ChannelID, sqlcommon.OrEmpty(m.DirectUserIDs),
			m.Topic, storage.TopicKey(m.Topic), m.Content, m.RenderedContent, sent, m.Client, edited, m.HasLink,
			m.HasImage, m.HasAttachment, searchWords(m)}
	}
	return t.batchIDs("CreateMessages", `INSERT INTO messages (realm_id, sender_id, recipient_type, channel_id,
		direct_user_ids, topic, topic_key, content, rendered_content, date_sent, client, edited_at, has_link,
		has_image, has_attachment, search_words)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING id`, args,
		func(i int, id int64) {
			ms[i].ID = id
			if t.fresh == nil {
				t.fresh = map[int64]bool{}
			}
			t.fresh[id] = true
		})
}

func (t *tx) Message(id int64) (storage.MessageRecord, error) {
	return one(t, "Message", `SELECT `+sqlcommon.MessageColumns+` FROM messages AS m WHERE m.id = $1`,
		func(row sqlcommon.Scanner) (storage.MessageRecord, error) {
			var m storage.MessageRecord
			err := sqlcommon.ScanMessage(forms, row, &m)
			return m, err
		}, id)
}

func (t *tx) UpdateMessage(m storage.MessageRecord) error {
	edited, err := sqlcommon.ToNanos(m.EditedAt)
	if err != nil {
		return err
	}
	return t.execOne("UpdateMessage", `UPDATE messages SET topic = $1, topic_key = $2, content = $3,
		rendered_content = $4, edited_at = $5, has_link = $6, has_image = $7, has_attachment = $8,
		search_words = $9, channel_id = CASE WHEN recipient_type = 1 THEN $10 ELSE channel_id END WHERE id = $11`,
		m.Topic, storage.TopicKey(m.Topic), m.Content, m.RenderedContent, edited, m.HasLink, m.HasImage,
		m.HasAttachment, searchWords(&m), m.ChannelID, m.ID)
}

func (t *tx) TopicMessageIDs(channelID int64, key string, limit int) ([]int64, error) {
	return list(t, "TopicMessageIDs", `SELECT id FROM messages WHERE channel_id = $1 AND topic_key = $2
		AND recipient_type = 1 ORDER BY id DESC LIMIT $3`, scanID, channelID, key, int64(limit))
}

// DeleteMessages removes the messages and their users' rows; their
// reactions go with them (ON DELETE CASCADE).
func (t *tx) DeleteMessages(ids []int64) error {
	if len(ids) == 0 {
		return t.Writable()
	}
	if _, err := t.exec("DeleteMessages", `DELETE FROM user_messages WHERE message_id = ANY($1)`, ids); err != nil {
		return err
	}
	_, err := t.exec("DeleteMessages", `DELETE FROM messages WHERE id = ANY($1)`, ids)
	return err
}

func (t *tx) OldestChannelMessageID(channelID int64) (int64, error) {
	return one(t, "OldestChannelMessageID", `SELECT coalesce(min(id), 0) FROM messages
		WHERE channel_id = $1 AND recipient_type = 1`, scanID, channelID)
}

// CreateUserMessages inserts the rows with one statement, which inserts
// none when any of them exists already: then it is storage.ErrExists and the
// transaction goes on, without the round trips of a savepoint. Should a
// concurrent transaction insert one of the rows after this one's snapshot,
// PostgreSQL reports a serialization failure (the statement read those
// keys in both partitions of the table, migration 0026: the partition's
// unique index, or SERIALIZABLE's read locks when the row went to the
// other), and Update runs fn again.
func (t *tx) CreateUserMessages(rows []storage.UserMessage) error {
	if err := t.Writable(); err != nil || len(rows) == 0 {
		return err
	}
	users, messages, flags := make([]int64, len(rows)), make([]int64, len(rows)), make([]int64, len(rows))
	seen := make(map[[2]int64]bool, len(rows))
	fresh := true
	for i, r := range rows {
		k := [2]int64{r.UserID, r.MessageID}
		if seen[k] {
			return storage.ErrExists
		}
		seen[k] = true
		users[i], messages[i], flags[i] = r.UserID, r.MessageID, int64(r.Flags)
		fresh = fresh && t.fresh[r.MessageID]
	}
	for _, r := range rows {
		delete(t.fresh, r.MessageID) // it has rows now, or is not new
	}
	// The rows of messages this transaction created cannot exist yet, so
	// they are inserted without looking for them first. The look would
	// take SERIALIZABLE's read locks on the pages of every recipient's
	// rows, where every other message to the same channel inserts: eight
	// senders to one channel of 1 000 failed and ran again about twice a
	// message (bench/peer).
	query := `INSERT INTO user_messages (user_id, message_id, flags)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])`
	if !fresh {
		query += `
		WHERE NOT EXISTS (SELECT FROM user_messages AS um
			JOIN unnest($1::bigint[], $2::bigint[]) AS r (user_id, message_id)
			ON um.user_id = r.user_id AND um.message_id = r.message_id)`
	}
	tag, err := t.exec("CreateUserMessages", query, users, messages, flags)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrExists
	}
	return nil
}

func (t *tx) MessageReaders(messageIDs []int64) ([]int64, error) {
	if len(messageIDs) == 0 {
		return []int64{}, nil
	}
	out, err := list(t, "MessageReaders", `SELECT DISTINCT user_id FROM user_messages WHERE message_id = ANY($1)
		ORDER BY user_id`, func(row sqlcommon.Scanner) (int64, error) {
		var id int64
		err := row.Scan(&id)
		return id, err
	}, messageIDs)
	if out == nil {
		out = []int64{}
	}
	return out, err
}

func (t *tx) UserMessage(userID, messageID int64) (storage.UserMessage, error) {
	return one(t, "UserMessage", `SELECT flags FROM user_messages WHERE user_id = $1 AND message_id = $2`,
		func(row sqlcommon.Scanner) (storage.UserMessage, error) {
			var flags int64
			err := row.Scan(&flags)
			return storage.UserMessage{UserID: userID, MessageID: messageID, Flags: storage.MessageFlags(flags)}, err
		}, userID, messageID)
}

func (t *tx) MessageRecipients(messageID int64) ([]storage.UserMessage, error) {
	return list(t, "MessageRecipients", `SELECT user_id, flags FROM user_messages WHERE message_id = $1
		ORDER BY user_id`, func(row sqlcommon.Scanner) (storage.UserMessage, error) {
		r := storage.UserMessage{MessageID: messageID}
		var flags int64
		err := row.Scan(&r.UserID, &flags)
		r.Flags = storage.MessageFlags(flags)
		return r, err
	}, messageID)
}

// FindMessages builds one statement from the filter's set fields.
//
// The statement is planned for its values at every run
// (pgx.QueryExecModeCacheDescribe: an unnamed statement, one round trip
// once its description is cached), not prepared once per connection as the
// other statements are. After five runs of a prepared statement PostgreSQL
// may switch to a generic plan, made without the values, and here the best
// plan depends on them: the newest 50 messages with a word of every
// message come from walking the reader's rows newest first, those with a
// word of a hundred messages from the search index's matches, sorted, and
// a topic narrow from the channel's topic index. Generic plans read every
// match of a common word and sorted them (10 ms at 10 000 messages, against
// 0.7 ms) and every row of the reader for a topic (4 ms, against 0.8 ms);
// planning costs a fraction of a millisecond.
func (t *tx) FindMessages(f storage.MessageFilter) ([]storage.MessageRow, error) {
	cols := sqlcommon.MessageColumns
	if f.WithoutContent {
		cols = sqlcommon.MessageColumnsWithoutContent
	}
	var q strings.Builder
	args := []any{pgx.QueryExecModeCacheDescribe}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args)-1)
	}
	maxID := f.MaxID
	if maxID == 0 {
		maxID = 1<<63 - 1
	}
	order := "m.id"
	if f.ChannelHistory && f.ChannelID != 0 {
		// Every message of the channel, with the reader's row if any.
		q.WriteString(`SELECT ` + cols + `, coalesce(um.flags, 0), um.user_id IS NOT NULL
			FROM messages AS m LEFT JOIN user_messages AS um ON um.message_id = m.id AND um.user_id = ` +
			arg(f.UserID) + ` WHERE m.channel_id = ` + arg(f.ChannelID) + ` AND m.recipient_type = 1
			AND m.realm_id = ` + arg(f.RealmID) + ` AND m.id BETWEEN ` + arg(f.MinID) + ` AND ` + arg(maxID))
	} else {
		// The reader's rows drive the query, in the order of their primary
		// key (user, message). The bound where the read starts goes on
		// the messages too: PostgreSQL carries equalities across a join,
		// not ranges, and a plan that merges the reader's rows with the
		// messages read newest first would otherwise start the messages at
		// the newest, so that a fetch below an anchor 500 000 messages back
		// read those 500 000 (0.45 s). Only that one bound: on tables
		// without statistics (right after a load) the planner takes a
		// BETWEEN for a selective condition and joined every message with
		// every row of the reader (7-12 s for a rare word at 10 000
		// messages), where one inequality it takes for a third of the rows.
		lo, hi := arg(f.MinID), arg(maxID)
		q.WriteString(`SELECT ` + cols + `, um.flags, true
			FROM user_messages AS um JOIN messages AS m ON m.id = um.message_id
			WHERE um.user_id = ` + arg(f.UserID) + ` AND um.message_id BETWEEN ` + lo + ` AND ` + hi +
			` AND m.realm_id = ` + arg(f.RealmID))
		switch {
		case f.Descending && f.MaxID != 0:
			q.WriteString(` AND m.id <= ` + hi)
		case !f.Descending && f.MinID > 0:
			q.WriteString(` AND m.id >= ` + lo)
		}
		if f.ChannelID != 0 {
			q.WriteString(` AND m.channel_id = ` + arg(f.ChannelID) + ` AND m.recipient_type = 1`)
		}
		order = "um.message_id"
	}
	if f.Unread {
		q.WriteString(` AND um.user_id IS NOT NULL AND um.flags & 1 = 0`)
	}
	if f.Starred {
		q.WriteString(` AND um.flags & 2 != 0`)
	}
	if f.TopicKey != nil {
		q.WriteString(` AND m.topic_key = ` + arg(*f.TopicKey) + ` AND m.recipient_type = 1`)
	}
	if f.IDs != nil {
		q.WriteString(` AND m.id = ANY(` + arg(f.IDs) + `::bigint[])`)
	}
	if len(f.Search) > 0 {
		q.WriteString(` AND m.search_words @> ` + arg(indexWords(f.Search)) + `::text[]`)
	}
	// A sender's and a conversation's messages have indexes in ID order
	// (realm, sender, ID) and (realm, participants, ID): ordered by m.id,
	// the planner may walk them and stop at the limit, and it does when
	// they are few beside the reader's rows.
	if f.SenderID != 0 {
		q.WriteString(` AND m.sender_id = ` + arg(f.SenderID))
		order = "m.id"
	}
	if len(f.DirectUserIDs) > 0 {
		q.WriteString(` AND m.recipient_type = 2 AND m.direct_user_ids = ` +
			arg(storage.DirectUserSet(f.DirectUserIDs)) + `::bigint[]`)
		order = "m.id"
	}
	q.WriteString(` ORDER BY ` + order)
	if f.Descending {
		q.WriteString(` DESC`)
	}
	if f.Limit > 0 {
		q.WriteString(` LIMIT ` + arg(int64(f.Limit)))
	}
	return list(t, "FindMessages", q.String(), func(row sqlcommon.Scanner) (storage.MessageRow, error) {
		var (
			r     storage.MessageRow
			flags int64
		)
		err := sqlcommon.ScanMessage(forms, row, &r.Message, &flags, &r.Received)
		r.Flags = storage.MessageFlags(flags)
		return r, err
	}, args...)
}

// CreateReaction relies on the unique index: a reaction that exists
// already inserts nothing, which is storage.ErrExists.
func (t *tx) CreateReaction(r storage.Reaction) error {
	tag, err := t.exec("CreateReaction", `INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code,
		reaction_type) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
		r.MessageID, r.UserID, r.EmojiName, r.EmojiCode, string(r.ReactionType))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrExists
	}
	return nil
}

func (t *tx) DeleteReaction(r storage.Reaction) error {
	return t.execOne("DeleteReaction", `DELETE FROM reactions WHERE message_id = $1 AND user_id = $2
		AND emoji_code = $3 AND reaction_type = $4`, r.MessageID, r.UserID, r.EmojiCode, string(r.ReactionType))
}

func (t *tx) Reactions(messageIDs []int64) ([]storage.Reaction, error) {
	if len(messageIDs) == 0 {
		return []storage.Reaction{}, nil
	}
	return list(t, "Reactions", `SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
		WHERE message_id = ANY($1) ORDER BY message_id, id`, func(row sqlcommon.Scanner) (storage.Reaction, error) {
		var (
			r   storage.Reaction
			typ string
		)
		err := row.Scan(&r.MessageID, &r.UserID, &r.EmojiName, &r.EmojiCode, &typ)
		r.ReactionType = storage.ReactionType(typ)
		return r, err
	}, messageIDs)
}

func (t *tx) DeleteUserMessages(userIDs, messageIDs []int64) error {
	if len(userIDs) == 0 || len(messageIDs) == 0 {
		return t.Writable()
	}
	_, err := t.exec("DeleteUserMessages", `DELETE FROM user_messages WHERE user_id = ANY($1) AND message_id = ANY($2)`,
		userIDs, messageIDs)
	return err
}

var _ storage.ReadMarkerTx = (*tx)(nil)

func (t *tx) MarkRead(userID int64, limit int) ([]int64, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	changed := []int64{}
	err := t.query("MarkRead", `UPDATE user_messages SET flags = flags | 1
		WHERE user_id = $1 AND message_id IN (SELECT message_id FROM user_messages
			WHERE user_id = $1 AND flags & 1 = 0 ORDER BY message_id LIMIT $2)
		RETURNING message_id`, sqlcommon.Into(&changed, sqlcommon.ScanID), userID, int64(limit))
	slices.Sort(changed)
	return changed, err
}

func (t *tx) UpdateUserMessageFlags(userID int64, messageIDs []int64, set, clear storage.MessageFlags) ([]int64, error) {
	if err := t.Writable(); err != nil {
		return nil, err
	}
	changed := []int64{}
	if len(messageIDs) == 0 {
		return changed, nil
	}
	err := t.query("UpdateUserMessageFlags", `UPDATE user_messages SET flags = (flags | $1) & ~$2::bigint
		WHERE user_id = $3 AND message_id = ANY($4) AND flags != (flags | $1) & ~$2::bigint
		RETURNING message_id`, sqlcommon.Into(&changed, sqlcommon.ScanID), int64(set), int64(clear), userID, messageIDs)
	slices.Sort(changed)
	return changed, err
}
