package memory

import (
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

func (t *tx) BotStorage(userID int64, keys []string) ([]storage.BotStorageEntry, error) {
	m := t.s.botStorage[userID]
	out := []storage.BotStorageEntry{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if keys == nil || slices.Contains(keys, k) {
			out = append(out, storage.BotStorageEntry{UserID: userID, Key: k, Value: m[k]})
		}
	}
	return out, nil
}

func (t *tx) BotStorageSize(userID int64) (int64, error) {
	var n int64
	for k, v := range t.s.botStorage[userID] {
		n += int64(utf8.RuneCountInString(k) + utf8.RuneCountInString(v))
	}
	return n, nil
}

// setBotStorage replaces a user's map and logs the undo. Maps are never
// changed in place, so the old one stays valid for the undo.
func (t *tx) setBotStorage(userID int64, m map[string]string) {
	setKey(t, t.s.botStorage, userID, m)
}

func (t *tx) SetBotStorage(entries []storage.BotStorageEntry) error {
	if err := t.writable(); err != nil {
		return err
	}
	for _, e := range entries {
		if _, ok := t.s.users[e.UserID]; !ok {
			return storage.ErrNotFound
		}
	}
	for _, e := range entries {
		m := maps.Clone(t.s.botStorage[e.UserID])
		if m == nil {
			m = map[string]string{}
		}
		m[e.Key] = e.Value
		t.setBotStorage(e.UserID, m)
	}
	return nil
}

func (t *tx) DeleteBotStorage(userID int64, keys []string) error {
	if err := t.writable(); err != nil {
		return err
	}
	m := maps.Clone(t.s.botStorage[userID])
	for _, k := range keys {
		delete(m, k)
	}
	t.setBotStorage(userID, m)
	return nil
}

func (t *tx) SetBotService(s storage.BotService) error {
	if err := t.writable(); err != nil {
		return err
	}
	if u, ok := t.s.users[s.BotID]; !ok || u.RealmID != s.RealmID {
		return storage.ErrNotFound
	}
	setKey(t, t.s.botServices, s.BotID, s)
	return nil
}

func (t *tx) RealmBotServices(realmID int64) ([]storage.BotService, error) {
	out := []storage.BotService{}
	for _, id := range slices.Sorted(maps.Keys(t.s.botServices)) {
		if s := t.s.botServices[id]; s.RealmID == realmID {
			out = append(out, s)
		}
	}
	return out, nil
}
