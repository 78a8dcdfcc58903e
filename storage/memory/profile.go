package memory

import (
	"cmp"
	"errors"
	"slices"

	"github.com/teamchat/chat/storage"
)

// profileState holds custom profile fields, their values and custom emoji.
type profileState struct {
	lastFieldID int64
	fields      map[int64]storage.ProfileField
	// values maps a user ID to that user's values by field ID.
	values map[int64]map[int64]storage.ProfileValueRecord

	lastEmojiID int64
	emoji       map[int64]storage.RealmEmoji
}

func newProfileState() profileState {
	return profileState{
		fields: map[int64]storage.ProfileField{},
		values: map[int64]map[int64]storage.ProfileValueRecord{},
		emoji:  map[int64]storage.RealmEmoji{},
	}
}

func (t *tx) CreateProfileField(f *storage.ProfileField) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.realms[f.RealmID]; !ok {
		return storage.ErrNotFound
	}
	p := &t.s.profiles
	for _, g := range p.fields {
		if g.RealmID == f.RealmID && g.Name == f.Name {
			return storage.ErrExists
		}
	}
	f.ID = nextID(t, &p.lastFieldID)
	setKey(t, p.fields, f.ID, *f)
	return nil
}

func (t *tx) UpdateProfileField(f storage.ProfileField) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.profiles
	old, ok := p.fields[f.ID]
	if !ok {
		return storage.ErrNotFound
	}
	for _, g := range p.fields {
		if g.ID != f.ID && g.RealmID == old.RealmID && g.Name == f.Name {
			return storage.ErrExists
		}
	}
	f.RealmID = old.RealmID
	setKey(t, p.fields, f.ID, f)
	return nil
}

func (t *tx) DeleteProfileField(id int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := &t.s.profiles
	if _, ok := p.fields[id]; !ok {
		return storage.ErrNotFound
	}
	for userID, vs := range p.values {
		if _, ok := vs[id]; ok {
			t.putValue(userID, id, nil)
		}
	}
	deleteKey(t, p.fields, id)
	return nil
}

func (t *tx) ProfileFields(realmID int64) ([]storage.ProfileField, error) {
	return filtered(t.s.profiles.fields, func(f *storage.ProfileField) bool { return f.RealmID == realmID },
		func(a, b *storage.ProfileField) int {
			return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ID, b.ID))
		}), nil
}

func (t *tx) ProfileValues(realmID int64, userIDs []int64) ([]storage.ProfileValueRecord, error) {
	ids := userIDs
	if ids == nil {
		ids = t.s.realmUsers[realmID]
	} else {
		ids = slices.Clone(ids)
		slices.Sort(ids)
		ids = slices.Compact(ids)
	}
	out := []storage.ProfileValueRecord{}
	for _, id := range ids {
		if u, ok := t.s.users[id]; !ok || u.RealmID != realmID {
			continue
		}
		start := len(out)
		for _, v := range t.s.profiles.values[id] {
			v.RenderedValue = clonePtr(v.RenderedValue)
			out = append(out, v)
		}
		slices.SortFunc(out[start:], func(a, b storage.ProfileValueRecord) int { return cmp.Compare(a.FieldID, b.FieldID) })
	}
	return out, nil
}

func clonePtr(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func (t *tx) SetProfileValue(v storage.ProfileValueRecord) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.users[v.UserID]; !ok {
		return storage.ErrNotFound
	}
	if _, ok := t.s.profiles.fields[v.FieldID]; !ok {
		return storage.ErrNotFound
	}
	v.RenderedValue = clonePtr(v.RenderedValue)
	t.putValue(v.UserID, v.FieldID, &v)
	return nil
}

func (t *tx) DeleteProfileValue(userID, fieldID int64) error {
	if err := t.writable(); err != nil {
		return err
	}
	t.putValue(userID, fieldID, nil)
	return nil
}

// putValue sets (v non-nil) or removes the user's value of the field and
// logs the undo.
func (t *tx) putValue(userID, fieldID int64, v *storage.ProfileValueRecord) {
	values := t.s.profiles.values
	set := func(v *storage.ProfileValueRecord) {
		if v == nil {
			delete(values[userID], fieldID)
			if len(values[userID]) == 0 {
				delete(values, userID)
			}
			return
		}
		if values[userID] == nil {
			values[userID] = map[int64]storage.ProfileValueRecord{}
		}
		values[userID][fieldID] = *v
	}
	var old *storage.ProfileValueRecord
	if o, ok := values[userID][fieldID]; ok {
		old = &o
	}
	set(v)
	t.onUndo(func() { set(old) })
}

// Custom emoji.

func (t *tx) CreateRealmEmoji(e *storage.RealmEmoji) error {
	if err := t.writable(); err != nil {
		return err
	}
	if _, ok := t.s.realms[e.RealmID]; !ok {
		return storage.ErrNotFound
	}
	if _, err := t.RealmEmojiByName(e.RealmID, e.Name); err == nil {
		return storage.ErrExists
	}
	p := &t.s.profiles
	e.ID = nextID(t, &p.lastEmojiID)
	setKey(t, p.emoji, e.ID, *e)
	return nil
}

func (t *tx) RealmEmoji(id int64) (storage.RealmEmoji, error) {
	return lookup(t.s.profiles.emoji, id)
}

func (t *tx) RealmEmojiByName(realmID int64, name string) (storage.RealmEmoji, error) {
	for _, e := range t.s.profiles.emoji {
		if e.RealmID == realmID && e.Name == name {
			return e, nil
		}
	}
	return storage.RealmEmoji{}, storage.ErrNotFound
}

func (t *tx) UpdateRealmEmoji(e storage.RealmEmoji) error {
	if err := t.writable(); err != nil {
		return err
	}
	old, ok := t.s.profiles.emoji[e.ID]
	if !ok {
		return storage.ErrNotFound
	}
	if other, err := t.RealmEmojiByName(e.RealmID, e.Name); err == nil && other.ID != e.ID {
		return storage.ErrExists
	}
	if e.RealmID != old.RealmID {
		return errors.New("memory: an emoji cannot move between organizations")
	}
	setKey(t, t.s.profiles.emoji, e.ID, e)
	return nil
}

func (t *tx) RealmEmojis(realmID int64) ([]storage.RealmEmoji, error) {
	return filtered(t.s.profiles.emoji, func(e *storage.RealmEmoji) bool { return e.RealmID == realmID },
		func(a, b *storage.RealmEmoji) int { return cmp.Compare(a.ID, b.ID) }), nil
}
