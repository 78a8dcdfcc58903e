package memory

import (
	"slices"

	"github.com/teamchat/chat/storage"
)

func cloneEdit(e storage.MessageEditRecord) storage.MessageEditRecord {
	for _, p := range []**string{&e.PrevContent, &e.PrevRenderedContent, &e.PrevTopic, &e.Topic} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return e
}

func (t *tx) AddMessageEdits(edits []storage.MessageEditRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	for _, e := range edits {
		if _, ok := t.s.c.messages[e.MessageID]; !ok {
			return storage.ErrNotFound
		}
	}
	ms := &t.s.msgs
	for _, e := range edits {
		old := ms.edits[e.MessageID]
		setKey(t, ms.edits, e.MessageID, append(slices.Clip(old), cloneEdit(e)))
	}
	return nil
}

func (t *tx) MessageEdits(messageIDs []int64) ([]storage.MessageEditRecord, error) {
	ids := slices.Clone(messageIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := []storage.MessageEditRecord{}
	for _, id := range ids {
		for _, e := range t.s.msgs.edits[id] {
			out = append(out, cloneEdit(e))
		}
	}
	return out, nil
}
