package postgres

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
			prev_rendered_content, prev_topic, topic, prev_channel_id, channel_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, args...)
		return err
	})
}

func (t *tx) MessageEdits(messageIDs []int64) ([]storage.MessageEditRecord, error) {
	if len(messageIDs) == 0 {
		return []storage.MessageEditRecord{}, nil
	}
	return list(t, "MessageEdits", sqlcommon.SelectMessageEdits+`WHERE message_id = ANY($1) ORDER BY message_id, id`,
		func(sc sqlcommon.Scanner) (storage.MessageEditRecord, error) {
			return sqlcommon.ScanMessageEdit(forms, sc)
		},
		messageIDs)
}
