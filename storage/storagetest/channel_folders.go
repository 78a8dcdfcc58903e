package storagetest

import (
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testChannelFolders(t *testing.T) {
	st, f := s.channelStore(t)
	a := storage.ChannelFolder{RealmID: f.r1.ID, Name: "Frontend ✓", Description: "UI *work*", RenderedDescription: "<p>UI <em>work</em></p>",
		CreatorID: f.users[0].ID, DateCreated: t0, IsArchived: true, Order: 5}
	b := storage.ChannelFolder{RealmID: f.r1.ID, Name: "Backend", DateCreated: t0.Add(time.Second), Order: 2}
	c := storage.ChannelFolder{RealmID: f.r1.ID, Name: "frontend ✓", DateCreated: t0, Order: 5}
	d := storage.ChannelFolder{RealmID: f.r2.ID, Name: "Other", DateCreated: t0, Order: 1}
	update(t, st, func(tx storage.Tx) {
		for _, x := range []*storage.ChannelFolder{&a, &b, &c, &d} {
			if err := tx.CreateChannelFolder(x); err != nil {
				t.Fatalf("CreateChannelFolder: %v", err)
			}
		}
	})
	if a.ID <= 0 || b.ID <= a.ID || c.ID <= b.ID || d.ID <= c.ID {
		t.Errorf("IDs %d, %d, %d, %d, want increasing", a.ID, b.ID, c.ID, d.ID)
	}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.ChannelFolder(a.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ChannelFolder", got, a)
		checkTime(t, "DateCreated", got.DateCreated)
		_, err = tx.ChannelFolder(999)
		checkErr(t, "ChannelFolder(999)", err, storage.ErrNotFound)
		list, err := tx.ChannelFolders(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ChannelFolders by order then ID", list, []storage.ChannelFolder{b, a, c})
		list, _ = tx.ChannelFolders(f.r2.ID)
		checkEqual(t, "ChannelFolders(r2)", list, []storage.ChannelFolder{d})
	})
	update(t, st, func(tx storage.Tx) {
		b.Name, b.Description, b.RenderedDescription, b.IsArchived, b.Order = "Back", "d", "<p>d</p>", true, 9
		b.CreatorID, b.DateCreated = f.users[1].ID, t0.Add(time.Hour)
		if err := tx.UpdateChannelFolder(b); err != nil {
			t.Fatalf("UpdateChannelFolder: %v", err)
		}
		missing := b
		missing.ID = 999
		checkErr(t, "UpdateChannelFolder(999)", tx.UpdateChannelFolder(missing), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		list, _ := tx.ChannelFolders(f.r1.ID)
		checkEqual(t, "ChannelFolders after update", list, []storage.ChannelFolder{a, c, b})
	})
}
