package postgres

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// UnreadMessages reads only the columns of the unread state, not the
// messages' contents; the unread partition's key finds the rows
// (migration 0026).
func (t *tx) UnreadMessages(realmID, userID int64, limit int) ([]storage.UnreadMessage, error) {
	q := `SELECT um.message_id, um.flags, m.recipient_type, m.channel_id, m.topic, m.direct_user_ids
		FROM user_messages AS um JOIN messages AS m ON m.id = um.message_id
		WHERE um.user_id = $1 AND um.flags & 1 = 0 AND m.realm_id = $2
		ORDER BY um.message_id DESC`
	args := []any{userID, realmID}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, int64(limit))
	}
	return list(t, "UnreadMessages", q, func(row sqlcommon.Scanner) (storage.UnreadMessage, error) {
		var (
			m         storage.UnreadMessage
			flags, rt int64
			users     []int64
		)
		err := row.Scan(&m.ID, &flags, &rt, &m.ChannelID, &m.Topic, forms.IDs(&users))
		m.Flags, m.RecipientType = storage.MessageFlags(flags), int(rt)
		if m.RecipientType == storage.RecipientChannel {
			return m, err
		}
		m.ChannelID, m.Topic = 0, ""
		if len(users) > 0 {
			m.DirectUserIDs = users
		}
		return m, err
	}, args...)
}
