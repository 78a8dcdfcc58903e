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
	p.lastFieldID++
	f.ID = p.lastFieldID
	p.fields[f.ID] = *f
	id := f.ID
	t.undo = append(t.undo, func() {
		delete(p.fields, id)
		p.lastFieldID--
	})
	return nil
}

func (t *tx) ProfileFields(realmID int64) ([]storage.ProfileField, error) {
	out := []storage.ProfileField{}
	for _, f := range t.s.profiles.fields {
		if f.RealmID == realmID {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b storage.ProfileField) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
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
	t.undo = append(t.undo, func() { set(old) })
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
	p.lastEmojiID++
	e.ID = p.lastEmojiID
	p.emoji[e.ID] = *e
	id := e.ID
	t.undo = append(t.undo, func() {
		delete(p.emoji, id)
		p.lastEmojiID--
	})
	return nil
}

func (t *tx) RealmEmoji(id int64) (storage.RealmEmoji, error) {
	e, ok := t.s.profiles.emoji[id]
	if !ok {
		return storage.RealmEmoji{}, storage.ErrNotFound
	}
	return e, nil
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
	emoji := t.s.profiles.emoji
	emoji[e.ID] = e
	t.undo = append(t.undo, func() { emoji[old.ID] = old })
	return nil
}

func (t *tx) RealmEmojis(realmID int64) ([]storage.RealmEmoji, error) {
	out := []storage.RealmEmoji{}
	for _, e := range t.s.profiles.emoji {
		if e.RealmID == realmID {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b storage.RealmEmoji) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
