package memory

import (
	"cmp"
	"slices"

	"github.com/teamchat/chat/storage"
)

func (t *tx) SetPresence(p *storage.Presence) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.users[p.UserID]; !ok {
		return storage.ErrNotFound
	}
	old, had := t.s.presence[p.UserID]
	lastID := t.s.lastPresenceID
	t.s.lastPresenceID++
	p.UpdateID = t.s.lastPresenceID
	t.s.presence[p.UserID] = *p
	t.undo = append(t.undo, func() {
		t.s.lastPresenceID = lastID
		if had {
			t.s.presence[p.UserID] = old
		} else {
			delete(t.s.presence, p.UserID)
		}
	})
	return nil
}

func (t *tx) Presence(userID int64) (storage.Presence, error) {
	p, ok := t.s.presence[userID]
	if !ok {
		return storage.Presence{}, storage.ErrNotFound
	}
	return p, nil
}

func (t *tx) Presences(realmID, afterUpdateID int64) ([]storage.Presence, error) {
	out := []storage.Presence{}
	for _, p := range t.s.presence {
		if p.RealmID == realmID && p.UpdateID > afterUpdateID {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b storage.Presence) int { return cmp.Compare(a.UserID, b.UserID) })
	return out, nil
}

func (t *tx) LastPresenceUpdateID(realmID int64) (int64, error) {
	var last int64
	for _, p := range t.s.presence {
		if p.RealmID == realmID {
			last = max(last, p.UpdateID)
		}
	}
	return last, nil
}
