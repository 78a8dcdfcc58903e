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
	p.UpdateID = nextID(t, &t.s.lastPresenceID)
	setKey(t, t.s.presence, p.UserID, *p)
	return nil
}

func (t *tx) Presence(userID int64) (storage.Presence, error) {
	return lookup(t.s.presence, userID)
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
