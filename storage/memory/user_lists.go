package memory

import (
	"maps"
	"slices"
	"time"

	"github.com/teamchat/chat/storage"
)

// alertWords are one user's alert words and realm.
type alertWords struct {
	realmID int64
	words   []string
}

func (t *tx) RealmAlertWords(realmID int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	for id, a := range t.s.alertWords {
		if a.realmID == realmID {
			out[id] = slices.Clone(a.words)
		}
	}
	return out, nil
}

func (t *tx) SetAlertWords(realmID, userID int64, words []string) error {
	if err := t.writable(); err != nil {
		return err
	}
	if u, ok := t.s.users[userID]; !ok || u.RealmID != realmID {
		return storage.ErrNotFound
	}
	if len(words) == 0 {
		deleteKey(t, t.s.alertWords, userID)
		return nil
	}
	setKey(t, t.s.alertWords, userID, alertWords{realmID: realmID, words: slices.Clone(words)})
	return nil
}

func (t *tx) MutedUsers(userID int64) ([]storage.MutedUser, error) {
	out := []storage.MutedUser{}
	m := t.s.muted[userID]
	for _, id := range slices.Sorted(maps.Keys(m)) {
		out = append(out, storage.MutedUser{UserID: userID, MutedUserID: id, DateMuted: m[id]})
	}
	return out, nil
}

func (t *tx) UsersMuting(mutedUserID int64) ([]int64, error) {
	out := []int64{}
	for id, m := range t.s.muted {
		if _, ok := m[mutedUserID]; ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (t *tx) MuteUser(m storage.MutedUser) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.users[m.UserID]; !ok {
		return storage.ErrNotFound
	}
	if _, ok := t.s.users[m.MutedUserID]; !ok {
		return storage.ErrNotFound
	}
	if _, ok := t.s.muted[m.UserID][m.MutedUserID]; ok {
		return storage.ErrExists
	}
	next := maps.Clone(t.s.muted[m.UserID])
	if next == nil {
		next = map[int64]time.Time{}
	}
	next[m.MutedUserID] = m.DateMuted
	setKey(t, t.s.muted, m.UserID, next)
	return nil
}

func (t *tx) UnmuteUser(userID, mutedUserID int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.muted[userID][mutedUserID]; !ok {
		return storage.ErrNotFound
	}
	next := maps.Clone(t.s.muted[userID])
	delete(next, mutedUserID)
	setKey(t, t.s.muted, userID, next)
	return nil
}

func (t *tx) UserSettings(userID int64) (map[string]string, error) {
	out := maps.Clone(t.s.settings[userID])
	if out == nil {
		out = map[string]string{}
	}
	return out, nil
}

func (t *tx) SetUserSettings(userID int64, values map[string]string) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.users[userID]; !ok {
		return storage.ErrNotFound
	}
	next := maps.Clone(t.s.settings[userID])
	if next == nil {
		next = map[string]string{}
	}
	maps.Copy(next, values)
	setKey(t, t.s.settings, userID, next)
	return nil
}
