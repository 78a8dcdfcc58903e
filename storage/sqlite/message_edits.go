package sqlite

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) AddMessageEdits(edits []storage.MessageEditRecord) error {
	if err := t.Writable(); err != nil {
		return err
	}
	return sqlcommon.InsertMessageEdits(edits, func(args ...any) error {
		_, err := t.exec("AddMessageEdits", `INSERT INTO message_edits (message_id, user_id, edited_at, prev_content,
			prev_rendered_content, prev_topic, topic, prev_channel_id, channel_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, args...)
		return err
	})
}

func (t *tx) MessageEdits(messageIDs []int64) ([]storage.MessageEditRecord, error) {
	out := []storage.MessageEditRecord{}
	if len(messageIDs) == 0 {
		return out, nil
	}
	err := t.query("MessageEdits", sqlcommon.SelectMessageEdits+`WHERE message_id IN (SELECT value FROM json_each(?))
		ORDER BY message_id, id`, into(&out, sqlcommon.ScanMessageEdit), jsonIDs(messageIDs))
	return out, err
}
