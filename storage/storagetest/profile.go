package storagetest

import (
	"context"
	"errors"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

func fieldN(realmID int64, name string, order int) storage.ProfileField {
	return storage.ProfileField{RealmID: realmID, Name: name, Hint: "hint of " + name, Type: storage.FieldChoice,
		FieldData: `{"a":{"order":"1","text":"Ä"}}`, Order: order, Required: true, EditableByUser: true,
		DisplayInProfileSummary: true, UseForUserMatching: true}
}

func (s *suite) testProfileFields(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var f1, f2, f3 storage.ProfileField
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		f1, f2, f3 = fieldN(r1.ID, "B", 2), fieldN(r1.ID, "A", 1), fieldN(r2.ID, "B", 1)
		f2.Required, f2.EditableByUser, f2.DisplayInProfileSummary, f2.UseForUserMatching = false, false, false, false
		f2.FieldData, f2.Type = "", storage.FieldShortText
		for _, f := range []*storage.ProfileField{&f1, &f2, &f3} {
			if err := tx.CreateProfileField(f); err != nil || f.ID <= 0 {
				t.Fatalf("CreateProfileField(%s): %v, ID %d", f.Name, err, f.ID)
			}
		}
		dup := fieldN(r1.ID, "B", 3)
		checkErr(t, "CreateProfileField with a taken name", tx.CreateProfileField(&dup), storage.ErrExists)
		orphan := fieldN(r1.ID+r2.ID+100, "C", 1)
		if err := tx.CreateProfileField(&orphan); err == nil {
			t.Errorf("CreateProfileField in an unknown realm succeeded")
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.ProfileFields(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff([]storage.ProfileField{f2, f1}, got); d != "" {
			t.Errorf("ProfileFields (-want +got):\n%s", d)
		}
		if got, err := tx.ProfileFields(r1.ID + r2.ID + 100); err != nil || len(got) != 0 {
			t.Errorf("ProfileFields(unknown realm) = %v, %v", got, err)
		}
	})

	// UpdateProfileField replaces all but the realm; DeleteProfileField
	// takes the users' values with the field.
	changed := f1
	changed.Name, changed.Hint, changed.Order, changed.Required, changed.FieldData = "Renamed", "new hint", 0, false, `{"x":"y"}`
	var u storage.UserRecord
	update(t, st, func(tx storage.Tx) {
		moved := changed
		moved.RealmID = r2.ID
		if err := tx.UpdateProfileField(moved); err != nil {
			t.Fatalf("UpdateProfileField: %v", err)
		}
		clash := f2
		clash.Name = "Renamed"
		checkErr(t, "UpdateProfileField to a taken name", tx.UpdateProfileField(clash), storage.ErrExists)
		unknown := f2
		unknown.ID = 99999
		checkErr(t, "UpdateProfileField(unknown)", tx.UpdateProfileField(unknown), storage.ErrNotFound)
		u = createUser(t, tx, userN(r1.ID, 1))
		for _, f := range []storage.ProfileField{f1, f2} {
			if err := tx.SetProfileValue(storage.ProfileValueRecord{UserID: u.ID, FieldID: f.ID, Value: "v"}); err != nil {
				t.Fatalf("SetProfileValue: %v", err)
			}
		}
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteProfileField(f2.ID); err != nil {
			t.Fatalf("DeleteProfileField: %v", err)
		}
		checkErr(t, "DeleteProfileField again", tx.DeleteProfileField(f2.ID), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.ProfileFields(r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff([]storage.ProfileField{changed}, got); d != "" {
			t.Errorf("ProfileFields after update and delete (-want +got):\n%s", d)
		}
		values, err := tx.ProfileValues(r1.ID, nil)
		if err != nil || len(values) != 1 || values[0].FieldID != f1.ID {
			t.Errorf("ProfileValues after deleting a field = %v, %v", values, err)
		}
	})
}

func (s *suite) testProfileValues(t *testing.T) {
	st := s.store(t)
	var r1, r2 storage.Realm
	var u1, u2, u3, other storage.UserRecord
	var f, g storage.ProfileField
	rendered := "<p>x</p>"
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		u1, u2, u3 = createUser(t, tx, userN(r1.ID, 1)), createUser(t, tx, userN(r1.ID, 2)), createUser(t, tx, userN(r1.ID, 3))
		other = createUser(t, tx, userN(r2.ID, 4))
		f, g = fieldN(r1.ID, "F", 1), fieldN(r1.ID, "G", 2)
		for _, x := range []*storage.ProfileField{&g, &f} {
			if err := tx.CreateProfileField(x); err != nil {
				t.Fatal(err)
			}
		}
		o := fieldN(r2.ID, "O", 1)
		if err := tx.CreateProfileField(&o); err != nil {
			t.Fatal(err)
		}
		for _, v := range []storage.ProfileValueRecord{
			{UserID: u2.ID, FieldID: g.ID, Value: "old"},
			{UserID: u2.ID, FieldID: g.ID, Value: "new", RenderedValue: &rendered},
			{UserID: u2.ID, FieldID: f.ID, Value: "f2"},
			{UserID: u1.ID, FieldID: f.ID, Value: "f1"},
			{UserID: u3.ID, FieldID: f.ID, Value: "gone"},
			{UserID: other.ID, FieldID: o.ID, Value: "elsewhere"},
		} {
			if err := tx.SetProfileValue(v); err != nil {
				t.Fatalf("SetProfileValue(%+v): %v", v, err)
			}
		}
		if err := tx.DeleteProfileValue(u3.ID, f.ID); err != nil {
			t.Fatal(err)
		}
		if err := tx.DeleteProfileValue(u3.ID, f.ID); err != nil {
			t.Errorf("deleting a missing value: %v", err)
		}
		if err := tx.SetProfileValue(storage.ProfileValueRecord{UserID: u1.ID, FieldID: f.ID + g.ID + 100, Value: "x"}); err == nil {
			t.Errorf("SetProfileValue of an unknown field succeeded")
		}
	})
	all := []storage.ProfileValueRecord{
		{UserID: u1.ID, FieldID: f.ID, Value: "f1"},
		{UserID: u2.ID, FieldID: g.ID, Value: "new", RenderedValue: &rendered},
		{UserID: u2.ID, FieldID: f.ID, Value: "f2"},
	}
	// Ordered by user, then field: g was created before f.
	if g.ID > f.ID {
		all[1], all[2] = all[2], all[1]
	}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.ProfileValues(r1.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(all, got); d != "" {
			t.Errorf("ProfileValues(all) (-want +got):\n%s", d)
		}
		got, err = tx.ProfileValues(r1.ID, []int64{u1.ID, other.ID, u3.ID, u1.ID})
		if err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(all[:1], got); d != "" {
			t.Errorf("ProfileValues(ids) (-want +got):\n%s", d)
		}
		if got, err := tx.ProfileValues(r1.ID, []int64{}); err != nil || len(got) != 0 {
			t.Errorf("ProfileValues(no ids) = %v, %v", got, err)
		}
		got, _ = tx.ProfileValues(r1.ID, nil)
		for i := range got {
			if got[i].RenderedValue != nil {
				*got[i].RenderedValue = "changed"
			}
			got[i].Value = "changed"
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := tx.ProfileValues(r1.ID, nil)
		if d := gocmp.Diff(all, got); d != "" {
			t.Errorf("ProfileValues aliases stored state (-want +got):\n%s", d)
		}
		if err := tx.SetProfileValue(storage.ProfileValueRecord{UserID: u1.ID, FieldID: f.ID}); !errors.Is(err, storage.ErrReadOnly) {
			t.Errorf("SetProfileValue in View: %v", err)
		}
	})
}

func (s *suite) testProfileValuesRollback(t *testing.T) {
	st := s.store(t)
	var r storage.Realm
	var u storage.UserRecord
	var f storage.ProfileField
	update(t, st, func(tx storage.Tx) {
		r = createRealm(t, tx, realmN(1))
		u = createUser(t, tx, userN(r.ID, 1))
		f = fieldN(r.ID, "F", 1)
		if err := tx.CreateProfileField(&f); err != nil {
			t.Fatal(err)
		}
		if err := tx.SetProfileValue(storage.ProfileValueRecord{UserID: u.ID, FieldID: f.ID, Value: "kept"}); err != nil {
			t.Fatal(err)
		}
	})
	boom := errors.New("boom")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		g := fieldN(r.ID, "G", 2)
		if err := tx.CreateProfileField(&g); err != nil {
			return err
		}
		if err := tx.SetProfileValue(storage.ProfileValueRecord{UserID: u.ID, FieldID: g.ID, Value: "lost"}); err != nil {
			return err
		}
		if err := tx.DeleteProfileValue(u.ID, f.ID); err != nil {
			return err
		}
		e := storage.RealmEmoji{RealmID: r.ID, Name: "lost"}
		if err := tx.CreateRealmEmoji(&e); err != nil {
			return err
		}
		return boom
	})
	checkErr(t, "failed Update", err, boom)
	view(t, st, func(tx storage.Tx) {
		fields, _ := tx.ProfileFields(r.ID)
		values, _ := tx.ProfileValues(r.ID, nil)
		if len(fields) != 1 || len(values) != 1 || values[0].Value != "kept" {
			t.Errorf("after rollback: fields %+v, values %+v", fields, values)
		}
		if _, err := tx.RealmEmojiByName(r.ID, "lost"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("emoji of a rolled-back Update: %v", err)
		}
	})
}
