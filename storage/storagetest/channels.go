package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// The channel area: user groups, channels, subscriptions, channel folders,
// user topics and the minimal message store. Backends may answer an empty
// list as nil or empty, hence EquateEmpty.

var equateEmpty = cmpopts.EquateEmpty()

func checkEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := gocmp.Diff(want, got, equateEmpty); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

func bptr(b bool) *bool { return &b }

// channelFixture is two organizations with users, for the channel cases.
type channelFixture struct {
	r1, r2 storage.Realm
	users  []storage.UserRecord // users[0..2] in r1, users[3] in r2
}

func (s *suite) channelStore(t *testing.T) (storage.Store, *channelFixture) {
	t.Helper()
	st := s.store(t)
	f := &channelFixture{}
	update(t, st, func(tx storage.Tx) {
		f.r1 = createRealm(t, tx, realmN(1))
		f.r2 = createRealm(t, tx, realmN(2))
		for i := range 3 {
			f.users = append(f.users, createUser(t, tx, userN(f.r1.ID, i)))
		}
		f.users = append(f.users, createUser(t, tx, userN(f.r2.ID, 3)))
	})
	return st, f
}

// channelN returns a channel of the realm with every field set, distinct
// for each i; group settings take both forms.
func channelN(realmID int64, i int) storage.Channel {
	return storage.Channel{
		RealmID: realmID, Name: fmt.Sprintf("Chännel %d ✓", i),
		Description: fmt.Sprintf("About *%d* 'q' \"dq\"", i), RenderedDescription: fmt.Sprintf("<p>About <em>%d</em></p>", i),
		DateCreated: t0.Add(time.Duration(i) * time.Minute), CreatorID: int64(100 + i),
		InviteOnly: i%2 == 1, IsWebPublic: i%3 == 0, HistoryPublicToSubscribers: i%2 == 0, IsDefault: i%2 == 0,
		MessageRetentionDays: i*7 - 1, TopicsPolicy: storage.TopicsDisableEmpty, FolderID: int64(i), FirstMessageID: int64(1000 + i),
		IsArchived:                i == 2,
		CanAddSubscribersGroup:    chat.GroupSettingOf(int64(i + 1)),
		CanRemoveSubscribersGroup: storage.GroupSetting{Members: []int64{3, int64(10 + i)}, Subgroups: []int64{2}},
		CanAdministerChannelGroup: storage.GroupSetting{Members: []int64{int64(i)}},
		CanDeleteAnyMessageGroup:  storage.GroupSetting{Subgroups: []int64{4, 5}},
		CanDeleteOwnMessageGroup:  storage.GroupSetting{},
		CanSendMessageGroup:       chat.GroupSettingOf(7),
		CanSubscribeGroup:         chat.GroupSettingOf(1),
	}
}

func createChannels(t *testing.T, tx storage.Tx, cs ...storage.Channel) []storage.Channel {
	t.Helper()
	ptrs := make([]*storage.Channel, len(cs))
	for i := range cs {
		ptrs[i] = &cs[i]
	}
	if err := tx.CreateChannels(ptrs); err != nil {
		t.Fatalf("CreateChannels: %v", err)
	}
	return cs
}

func (s *suite) testUserGroups(t *testing.T) {
	st, f := s.channelStore(t)
	members := []int64{f.users[0].ID, f.users[2].ID}
	a := &storage.UserGroup{RealmID: f.r1.ID, Name: "role:owners", Description: "Owners ✓ 'q'", IsSystem: true, DateCreated: t0}
	b := &storage.UserGroup{RealmID: f.r1.ID, Name: "Designers", Description: "", CreatorID: f.users[1].ID,
		DateCreated: t0.Add(time.Hour), Deactivated: true, Members: members, Subgroups: []int64{1, 2}}
	c := &storage.UserGroup{RealmID: f.r2.ID, Name: "Designers", DateCreated: t0}
	update(t, st, func(tx storage.Tx) {
		if err := tx.CreateUserGroups([]*storage.UserGroup{a, b}); err != nil {
			t.Fatalf("CreateUserGroups: %v", err)
		}
		if err := tx.CreateUserGroups([]*storage.UserGroup{c}); err != nil {
			t.Fatalf("CreateUserGroups in another realm: %v", err)
		}
		if a.ID <= 0 || b.ID <= a.ID || c.ID <= b.ID {
			t.Errorf("IDs %d, %d, %d, want increasing", a.ID, b.ID, c.ID)
		}
		dup := &storage.UserGroup{RealmID: f.r1.ID, Name: "Designers", DateCreated: t0}
		checkErr(t, "same name in the realm", tx.CreateUserGroups([]*storage.UserGroup{dup}), storage.ErrExists)
		x, y := &storage.UserGroup{RealmID: f.r1.ID, Name: "x", DateCreated: t0}, &storage.UserGroup{RealmID: f.r1.ID, Name: "x", DateCreated: t0}
		checkErr(t, "same name twice in one call", tx.CreateUserGroups([]*storage.UserGroup{x, y}), storage.ErrExists)
	})
	// The caller's slices are not the stored ones.
	members[0] = 999
	b.Members[1] = 999
	want := []storage.UserGroup{*a, {ID: b.ID, RealmID: f.r1.ID, Name: "Designers", CreatorID: f.users[1].ID,
		DateCreated: t0.Add(time.Hour), Deactivated: true, Members: []int64{f.users[0].ID, f.users[2].ID}, Subgroups: []int64{1, 2}}}
	view(t, st, func(tx storage.Tx) {
		got, err := tx.UserGroups(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserGroups(r1)", got, want)
		for i := range got {
			checkTime(t, "DateCreated", got[i].DateCreated)
		}
		got[1].Members[0] = 12345 // must not reach the store
		got, err = tx.UserGroups(f.r2.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserGroups(r2)", got, []storage.UserGroup{*c})
		got, err = tx.UserGroups(999)
		if err != nil || len(got) != 0 {
			t.Errorf("UserGroups(unknown realm) = %v, %v", got, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := tx.UserGroups(f.r1.ID)
		checkEqual(t, "UserGroups after changing a result", got, want)
	})
}

func (s *suite) testChannels(t *testing.T) {
	st, f := s.channelStore(t)
	var c1, c2, c3, other storage.Channel
	update(t, st, func(tx storage.Tx) {
		cs := createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2), channelN(f.r1.ID, 3))
		c1, c2, c3 = cs[0], cs[1], cs[2]
		// The same name in another organization is fine.
		o := channelN(f.r2.ID, 1)
		other = createChannels(t, tx, o)[0]
	})
	if c1.ID <= 0 || c2.ID != c1.ID+1 || c3.ID != c2.ID+1 || other.ID <= c3.ID {
		t.Errorf("IDs %d, %d, %d, %d: want consecutive, in order", c1.ID, c2.ID, c3.ID, other.ID)
	}
	view(t, st, func(tx storage.Tx) {
		for _, want := range []storage.Channel{c1, c2, c3, other} {
			got, err := tx.Channel(want.ID)
			if err != nil {
				t.Fatalf("Channel(%d): %v", want.ID, err)
			}
			checkEqual(t, "Channel", got, want)
			checkTime(t, "DateCreated", got.DateCreated)
		}
		_, err := tx.Channel(999)
		checkErr(t, "Channel(999)", err, storage.ErrNotFound)
		all, err := tx.Channels(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Channels(r1)", all, []storage.Channel{c1, c2, c3})
		byName, err := storage.ChannelsByName(tx, f.r1.ID, []string{storage.ChannelNameKey("CHÄNNEL 3 ✓"), storage.ChannelNameKey("nope"),
			storage.ChannelNameKey(c1.Name), storage.ChannelNameKey(c1.Name)})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ChannelsByName", byName, []storage.Channel{c1, c3})
		byName, err = storage.ChannelsByName(tx, f.r2.ID, []string{storage.ChannelNameKey(c3.Name)})
		if err != nil || len(byName) != 0 {
			t.Errorf("ChannelsByName of another realm's name = %v, %v", byName, err)
		}
		byName, err = storage.ChannelsByName(tx, f.r1.ID, nil)
		if err != nil || len(byName) != 0 {
			t.Errorf("ChannelsByName(no keys) = %v, %v", byName, err)
		}
	})

	// Uniqueness without regard to case, storing none of a failed batch.
	update(t, st, func(tx storage.Tx) {
		fresh, clash := channelN(f.r1.ID, 7), channelN(f.r1.ID, 8)
		clash.Name = "CHÄNNEL 2 ✓"
		checkErr(t, "CreateChannels with an existing name", tx.CreateChannels([]*storage.Channel{&fresh, &clash}), storage.ErrExists)
		a, b := channelN(f.r1.ID, 9), channelN(f.r1.ID, 9)
		b.Name = "chännel 9 ✓"
		checkErr(t, "CreateChannels with a name twice", tx.CreateChannels([]*storage.Channel{&a, &b}), storage.ErrExists)
		all, err := tx.Channels(f.r1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Channels after failed creations", all, []storage.Channel{c1, c2, c3})
	})

	// Updates.
	update(t, st, func(tx storage.Tx) {
		u := channelN(f.r1.ID, 4)
		u.ID, u.RealmID = c1.ID, f.r1.ID
		u.Name = "Renamed"
		if err := tx.UpdateChannel(u); err != nil {
			t.Fatalf("UpdateChannel: %v", err)
		}
		c1 = u
		clash := c2
		clash.Name = "renamed"
		checkErr(t, "UpdateChannel to a taken name", tx.UpdateChannel(clash), storage.ErrExists)
		missing := c2
		missing.ID = 999
		checkErr(t, "UpdateChannel(999)", tx.UpdateChannel(missing), storage.ErrNotFound)
		// A channel keeps its own name under another case.
		c3.Name = "CHÄNNEL 3 ✓"
		if err := tx.UpdateChannel(c3); err != nil {
			t.Errorf("UpdateChannel changing the case: %v", err)
		}
		// The old name is free again.
		reuse := channelN(f.r1.ID, 1)
		c4 := createChannels(t, tx, reuse)[0]
		if got, _ := storage.ChannelsByName(tx, f.r1.ID, []string{storage.ChannelNameKey("chännel 1 ✓")}); len(got) != 1 || got[0].ID != c4.ID {
			t.Errorf("ChannelsByName(old name) = %v, want the new channel %d", got, c4.ID)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.Channel(c1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "updated channel", got, c1)
		got.CanRemoveSubscribersGroup.Members[0] = 4242 // must not reach the store
		got, _ = tx.Channel(c3.ID)
		checkEqual(t, "renamed channel", got, c3)
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := tx.Channel(c1.ID)
		checkEqual(t, "channel after changing a result", got, c1)
	})
}

func (s *suite) testSubscriptions(t *testing.T) {
	st, f := s.channelStore(t)
	var chans []storage.Channel
	update(t, st, func(tx storage.Tx) {
		chans = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2), channelN(f.r1.ID, 3))
	})
	u0, u1, u2 := f.users[0].ID, f.users[1].ID, f.users[2].ID
	ch0, ch1, ch2 := chans[0].ID, chans[1].ID, chans[2].ID
	full := storage.Subscription{UserID: u1, ChannelID: ch0, Color: "#a1B2c3", IsMuted: true, PinToTop: true,
		DesktopNotifications: bptr(true), AudibleNotifications: bptr(false), PushNotifications: bptr(true),
		EmailNotifications: bptr(false), WildcardMentionsNotify: bptr(true)}
	subs := []storage.Subscription{
		{UserID: u2, ChannelID: ch1, Color: "#76ce90"},
		full,
		{UserID: u0, ChannelID: ch2, Color: "#fff"},
		{UserID: u1, ChannelID: ch2, Color: "#abc", EmailNotifications: bptr(true)},
		{UserID: u0, ChannelID: ch0, Color: "#000"},
	}
	update(t, st, func(tx storage.Tx) {
		if err := tx.CreateSubscriptions(subs); err != nil {
			t.Fatalf("CreateSubscriptions: %v", err)
		}
		if err := tx.CreateSubscriptions(nil); err != nil {
			t.Errorf("CreateSubscriptions(nil): %v", err)
		}
		// A duplicate, of a stored row or within the call, stores none.
		fresh := storage.Subscription{UserID: u2, ChannelID: ch0, Color: "#111"}
		checkErr(t, "CreateSubscriptions with an existing row",
			tx.CreateSubscriptions([]storage.Subscription{fresh, {UserID: u0, ChannelID: ch0, Color: "#222"}}), storage.ErrExists)
		checkErr(t, "CreateSubscriptions with a row twice", tx.CreateSubscriptions([]storage.Subscription{fresh, fresh}), storage.ErrExists)
		_, err := subscriptionOf(tx, u2, ch0)
		checkErr(t, "Subscription after failed creations", err, storage.ErrNotFound)
	})
	subs[1].DesktopNotifications = bptr(true)
	update(t, st, func(tx storage.Tx) {
		if err := tx.UpdateSubscription(subs[1]); err != nil {
			t.Fatal(err)
		}
	})
	*subs[1].DesktopNotifications = false // the store has its own copy
	full.DesktopNotifications = bptr(true)
	view(t, st, func(tx storage.Tx) {
		got, err := subscriptionOf(tx, u1, ch0)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Subscription", got, full)
		*got.WildcardMentionsNotify = false // must not reach the store
		_, err = subscriptionOf(tx, u2, ch0)
		checkErr(t, "Subscription(not subscribed)", err, storage.ErrNotFound)
		got2, err := tx.SubscriptionsOfUsers([]int64{u1, u0, 999, u1})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "SubscriptionsOfUsers", got2, []storage.Subscription{subs[4], subs[2], full, subs[3]})
		got2, err = tx.SubscriptionsOfUsers(nil)
		if err != nil || len(got2) != 0 {
			t.Errorf("SubscriptionsOfUsers(nil) = %v, %v", got2, err)
		}
		colors, err := storage.SubscriptionColors(tx, []int64{u1, u0, 999, u1})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "SubscriptionColors", colors, map[int64][]string{u0: {"#000", "#fff"}, u1: {"#a1B2c3", "#abc"}})
		colors, err = storage.SubscriptionColors(tx, nil)
		if err != nil || len(colors) != 0 {
			t.Errorf("SubscriptionColors(nil) = %v, %v", colors, err)
		}
		got2, err = tx.ChannelSubscriptions([]int64{ch2, ch0, ch2})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ChannelSubscriptions", got2, []storage.Subscription{subs[4], full, subs[2], subs[3]})
		got2, err = tx.ChannelSubscriptions(nil)
		if err != nil || len(got2) != 0 {
			t.Errorf("ChannelSubscriptions(nil) = %v, %v", got2, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := subscriptionOf(tx, u1, ch0)
		checkEqual(t, "Subscription after changing a result", got, full)
	})

	update(t, st, func(tx storage.Tx) {
		changed := full
		changed.Color, changed.IsMuted, changed.PinToTop = "#123456", false, false
		changed.DesktopNotifications, changed.AudibleNotifications, changed.WildcardMentionsNotify = nil, bptr(true), nil
		if err := tx.UpdateSubscription(changed); err != nil {
			t.Fatalf("UpdateSubscription: %v", err)
		}
		got, _ := subscriptionOf(tx, u1, ch0)
		checkEqual(t, "updated subscription", got, changed)
		checkErr(t, "UpdateSubscription(not subscribed)", tx.UpdateSubscription(storage.Subscription{UserID: u2, ChannelID: ch0, Color: "#fff"}), storage.ErrNotFound)
		if err := tx.DeleteSubscription(u1, ch0); err != nil {
			t.Fatalf("DeleteSubscription: %v", err)
		}
		checkErr(t, "DeleteSubscription again", tx.DeleteSubscription(u1, ch0), storage.ErrNotFound)
		_, err := subscriptionOf(tx, u1, ch0)
		checkErr(t, "deleted subscription", err, storage.ErrNotFound)
		got2, _ := tx.ChannelSubscriptions([]int64{ch0})
		checkEqual(t, "ChannelSubscriptions after delete", got2, []storage.Subscription{subs[4]})
		// Subscribing again works.
		if err := tx.CreateSubscriptions([]storage.Subscription{full}); err != nil {
			t.Errorf("subscribing again: %v", err)
		}
	})
}

// testSubscriptionsBulk stores more rows than any batch size a backend is
// likely to use, and reads them back in order.
func (s *suite) testSubscriptionsBulk(t *testing.T) {
	st, f := s.channelStore(t)
	var want []storage.Subscription
	update(t, st, func(tx storage.Tx) {
		var cs []storage.Channel
		for i := range 70 {
			cs = append(cs, channelN(f.r1.ID, 10+i))
		}
		cs = createChannels(t, tx, cs...)
		var subs []storage.Subscription
		for _, c := range cs {
			for j, u := range f.users[:3] {
				s := storage.Subscription{UserID: u.ID, ChannelID: c.ID, Color: fmt.Sprintf("#%06x", c.ID*3+int64(j))}
				if j == 1 {
					s.PushNotifications = bptr(c.ID%2 == 0)
				}
				subs = append(subs, s)
			}
		}
		if err := tx.CreateSubscriptions(subs); err != nil {
			t.Fatalf("CreateSubscriptions(%d rows): %v", len(subs), err)
		}
		for _, u := range f.users[:3] {
			for _, s := range subs {
				if s.UserID == u.ID {
					want = append(want, s)
				}
			}
		}
	})
	// A duplicate late in a large call stores none of the call's rows.
	update(t, st, func(tx storage.Tx) {
		var cs []storage.Channel
		for i := range 70 {
			cs = append(cs, channelN(f.r1.ID, 100+i))
		}
		cs = createChannels(t, tx, cs...)
		var subs []storage.Subscription
		for _, c := range cs {
			for _, u := range f.users[:2] {
				subs = append(subs, storage.Subscription{UserID: u.ID, ChannelID: c.ID, Color: "#fff"})
			}
		}
		subs = append(subs[:130], append([]storage.Subscription{want[0]}, subs[130:]...)...)
		checkErr(t, "CreateSubscriptions with a duplicate at row 130", tx.CreateSubscriptions(subs), storage.ErrExists)
		ids := make([]int64, len(cs))
		for i := range cs {
			ids[i] = cs[i].ID
		}
		if got, err := tx.ChannelSubscriptions(ids); err != nil || len(got) != 0 {
			t.Errorf("after the failed call: %d rows, %v; want none", len(got), err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		// Two subscriptions of one colour give it once.
		for _, s := range want[:2] {
			s.Color = "#dup"
			if err := tx.UpdateSubscription(s); err != nil {
				t.Fatal(err)
			}
		}
		want[0].Color, want[1].Color = "#dup", "#dup"
		colors, err := storage.SubscriptionColors(tx, []int64{f.users[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		if got := colors[f.users[0].ID]; len(got) != 69 || got[68] != "#dup" || !slices.IsSorted(got) {
			t.Errorf("SubscriptionColors = %q, want 69 sorted colours ending with #dup", got)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.SubscriptionsOfUsers([]int64{f.users[2].ID, f.users[0].ID, f.users[1].ID})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "SubscriptionsOfUsers", got, want)
	})
}

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

func (s *suite) testUserTopics(t *testing.T) {
	st, f := s.channelStore(t)
	var ch []storage.Channel
	update(t, st, func(tx storage.Tx) { ch = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2)) })
	u0, u1 := f.users[0].ID, f.users[1].ID
	muted := storage.UserTopic{UserID: u0, ChannelID: ch[1].ID, Topic: "Straße ✓", VisibilityPolicy: chat.TopicMuted, LastUpdated: t0}
	followed := storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "b", VisibilityPolicy: chat.TopicFollowed, LastUpdated: t0.Add(time.Second)}
	empty := storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "", VisibilityPolicy: chat.TopicUnmuted, LastUpdated: t0}
	other := storage.UserTopic{UserID: u1, ChannelID: ch[1].ID, Topic: "STRASSE ✓", VisibilityPolicy: chat.TopicFollowed, LastUpdated: t0}
	keep := storage.UserTopic{UserID: u1, ChannelID: ch[1].ID, Topic: "kept", VisibilityPolicy: chat.TopicMuted, LastUpdated: t0}
	update(t, st, func(tx storage.Tx) {
		for _, ut := range []storage.UserTopic{muted, followed, empty, other, keep} {
			if err := tx.SetUserTopic(ut); err != nil {
				t.Fatalf("SetUserTopic: %v", err)
			}
		}
		// Inheriting a topic without a row is a no-op.
		if err := tx.SetUserTopic(storage.UserTopic{UserID: u1, ChannelID: ch[0].ID, Topic: "none"}); err != nil {
			t.Errorf("SetUserTopic(inherit, no row): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.UserTopic(u0, ch[1].ID, storage.TopicKey("STRASSE ✓"))
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserTopic by another case", got, muted)
		checkTime(t, "LastUpdated", got.LastUpdated)
		_, err = tx.UserTopic(u0, ch[1].ID, "nope")
		checkErr(t, "UserTopic(none)", err, storage.ErrNotFound)
		_, err = tx.UserTopic(u1, ch[0].ID, "none")
		checkErr(t, "UserTopic(inherited)", err, storage.ErrNotFound)
		list, err := tx.UserTopics(u0)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "UserTopics by channel then key", list, []storage.UserTopic{empty, followed, muted})
		list, _ = tx.UserTopics(999)
		checkEqual(t, "UserTopics(unknown user)", list, nil)
	})
	update(t, st, func(tx storage.Tx) {
		// Replacing keeps one row per key, with the name last set.
		renamed := followed
		renamed.Topic, renamed.VisibilityPolicy, renamed.LastUpdated = "B", chat.TopicMuted, t0.Add(time.Hour)
		if err := tx.SetUserTopic(renamed); err != nil {
			t.Fatal(err)
		}
		followed = renamed
		if err := tx.SetUserTopic(storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "", VisibilityPolicy: chat.TopicInherit, LastUpdated: t0}); err != nil {
			t.Fatal(err)
		}
		list, _ := tx.UserTopics(u0)
		checkEqual(t, "UserTopics after replace and inherit", list, []storage.UserTopic{followed, muted})
		removed, err := tx.DeleteTopicUserTopics(ch[1].ID, storage.TopicKey("strasse ✓"))
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "DeleteTopicUserTopics, by user ID", removed, []storage.UserTopic{muted, other})
		removed, err = tx.DeleteTopicUserTopics(ch[1].ID, storage.TopicKey("strasse ✓"))
		if err != nil || len(removed) != 0 {
			t.Errorf("DeleteTopicUserTopics again = %v, %v", removed, err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		list, _ := tx.UserTopics(u0)
		checkEqual(t, "UserTopics(u0) after the topic's deletion", list, []storage.UserTopic{followed})
		list, _ = tx.UserTopics(u1)
		checkEqual(t, "UserTopics(u1) after the topic's deletion", list, []storage.UserTopic{keep})
	})
}

func (s *suite) testChannelMessages(t *testing.T) {
	st, f := s.channelStore(t)
	var ch []storage.Channel
	update(t, st, func(tx storage.Tx) { ch = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2)) })
	msg := func(channel int64, topic string, i int) *storage.MessageRecord {
		return &storage.MessageRecord{RealmID: f.r1.ID, SenderID: f.users[i%3].ID, RecipientType: chat.RecipientChannel,
			ChannelID: channel, Topic: topic, Content: fmt.Sprintf("**m%d** ✓", i), RenderedContent: fmt.Sprintf("<p><strong>m%d</strong> ✓</p>", i),
			DateSent: t0.Add(time.Duration(i) * time.Second)}
	}
	users := []int64{f.users[0].ID, f.users[2].ID}
	direct := &storage.MessageRecord{RealmID: f.r1.ID, RecipientType: chat.RecipientDirect, DirectUserIDs: users,
		Content: "hi", RenderedContent: "<p>hi</p>", DateSent: t0}
	ms := []*storage.MessageRecord{msg(ch[0].ID, "Topic", 1), msg(ch[0].ID, "other", 2), direct, msg(ch[0].ID, "TOPIC", 3),
		msg(ch[1].ID, "topic", 4), msg(ch[0].ID, "topic", 5)}
	update(t, st, func(tx storage.Tx) {
		if err := tx.CreateMessages(ms); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
	})
	for i := 1; i < len(ms); i++ {
		if ms[i].ID <= ms[i-1].ID || ms[0].ID <= 0 {
			t.Fatalf("message IDs not increasing: %d then %d", ms[i-1].ID, ms[i].ID)
		}
	}
	users[0] = 999 // the store has its own copy
	view(t, st, func(tx storage.Tx) {
		for _, want := range ms {
			got, err := tx.Message(want.ID)
			if err != nil {
				t.Fatalf("Message(%d): %v", want.ID, err)
			}
			w := *want
			if w.RecipientType == chat.RecipientDirect {
				w.DirectUserIDs = []int64{f.users[0].ID, f.users[2].ID}
			}
			checkEqual(t, "Message", got, w)
			checkTime(t, "DateSent", got.DateSent)
		}
		got, _ := tx.Message(direct.ID)
		got.DirectUserIDs[0] = 4242 // must not reach the store
		got, _ = tx.Message(direct.ID)
		checkEqual(t, "direct message after changing a result", got.DirectUserIDs, []int64{f.users[0].ID, f.users[2].ID})
		_, err := tx.Message(999)
		checkErr(t, "Message(999)", err, storage.ErrNotFound)
		ids, err := tx.TopicMessageIDs(ch[0].ID, storage.TopicKey("topic"), 10)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "TopicMessageIDs newest first", ids, []int64{ms[5].ID, ms[3].ID, ms[0].ID})
		ids, _ = tx.TopicMessageIDs(ch[0].ID, storage.TopicKey("topic"), 2)
		checkEqual(t, "TopicMessageIDs with a limit", ids, []int64{ms[5].ID, ms[3].ID})
		ids, _ = tx.TopicMessageIDs(ch[0].ID, "none", 10)
		checkEqual(t, "TopicMessageIDs(no such topic)", ids, nil)
		for _, c := range []struct {
			channel, want int64
		}{{ch[0].ID, ms[0].ID}, {ch[1].ID, ms[4].ID}, {999, 0}} {
			if got, err := tx.OldestChannelMessageID(c.channel); err != nil || got != c.want {
				t.Errorf("OldestChannelMessageID(%d) = %d, %v, want %d", c.channel, got, err, c.want)
			}
		}
	})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteMessages([]int64{ms[0].ID, 999, ms[3].ID, ms[0].ID}); err != nil {
			t.Fatalf("DeleteMessages: %v", err)
		}
		if err := tx.DeleteMessages(nil); err != nil {
			t.Errorf("DeleteMessages(nil): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		_, err := tx.Message(ms[0].ID)
		checkErr(t, "deleted message", err, storage.ErrNotFound)
		ids, _ := tx.TopicMessageIDs(ch[0].ID, storage.TopicKey("topic"), 10)
		checkEqual(t, "TopicMessageIDs after delete", ids, []int64{ms[5].ID})
		if got, _ := tx.OldestChannelMessageID(ch[0].ID); got != ms[1].ID {
			t.Errorf("OldestChannelMessageID after delete = %d, want %d", got, ms[1].ID)
		}
		if _, err := tx.Message(direct.ID); err != nil {
			t.Errorf("direct message after deleting others: %v", err)
		}
	})
}

// testChannelsRollback writes in every method of the area in a transaction
// that fails, and checks that none of it is visible afterwards.
func (s *suite) testChannelsRollback(t *testing.T) {
	st, f := s.channelStore(t)
	var c storage.Channel
	sub := storage.Subscription{UserID: f.users[0].ID, Color: "#fff"}
	ut := storage.UserTopic{UserID: f.users[0].ID, Topic: "t", VisibilityPolicy: chat.TopicMuted, LastUpdated: t0}
	var folder storage.ChannelFolder
	var m *storage.MessageRecord
	update(t, st, func(tx storage.Tx) {
		c = createChannels(t, tx, channelN(f.r1.ID, 1))[0]
		sub.ChannelID, ut.ChannelID = c.ID, c.ID
		if err := tx.CreateSubscriptions([]storage.Subscription{sub}); err != nil {
			t.Fatal(err)
		}
		if err := tx.SetUserTopic(ut); err != nil {
			t.Fatal(err)
		}
		folder = storage.ChannelFolder{RealmID: f.r1.ID, Name: "f", DateCreated: t0}
		if err := tx.CreateChannelFolder(&folder); err != nil {
			t.Fatal(err)
		}
		m = &storage.MessageRecord{RealmID: f.r1.ID, RecipientType: chat.RecipientChannel, ChannelID: c.ID, Topic: "t", DateSent: t0}
		if err := tx.CreateMessages([]*storage.MessageRecord{m}); err != nil {
			t.Fatal(err)
		}
	})
	errBoom := errors.New("boom")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		steps := []error{
			tx.CreateUserGroups([]*storage.UserGroup{{RealmID: f.r1.ID, Name: "g", DateCreated: t0}}),
			tx.CreateChannels([]*storage.Channel{ptr(channelN(f.r1.ID, 2))}),
			tx.UpdateChannel(func() storage.Channel { x := c; x.Name = "changed"; return x }()),
			tx.CreateSubscriptions([]storage.Subscription{{UserID: f.users[1].ID, ChannelID: c.ID, Color: "#000"}}),
			tx.UpdateSubscription(func() storage.Subscription { x := sub; x.IsMuted = true; return x }()),
			tx.DeleteSubscription(sub.UserID, sub.ChannelID),
			tx.CreateChannelFolder(&storage.ChannelFolder{RealmID: f.r1.ID, Name: "g", DateCreated: t0}),
			tx.UpdateChannelFolder(func() storage.ChannelFolder { x := folder; x.Name = "changed"; return x }()),
			tx.SetUserTopic(storage.UserTopic{UserID: f.users[0].ID, ChannelID: c.ID, Topic: "t"}),
			tx.SetUserTopic(storage.UserTopic{UserID: f.users[1].ID, ChannelID: c.ID, Topic: "u", VisibilityPolicy: 3, LastUpdated: t0}),
			tx.CreateMessages([]*storage.MessageRecord{{RealmID: f.r1.ID, RecipientType: chat.RecipientChannel, ChannelID: c.ID, DateSent: t0}}),
			tx.DeleteMessages([]int64{m.ID}),
		}
		for i, err := range steps {
			if err != nil {
				t.Errorf("step %d: %v", i, err)
			}
		}
		_, err := tx.DeleteTopicUserTopics(c.ID, "t")
		if err != nil {
			t.Errorf("DeleteTopicUserTopics: %v", err)
		}
		return errBoom
	})
	checkErr(t, "Update", err, errBoom)
	view(t, st, func(tx storage.Tx) {
		if gs, _ := tx.UserGroups(f.r1.ID); len(gs) != 0 {
			t.Errorf("groups after rollback: %v", gs)
		}
		cs, _ := tx.Channels(f.r1.ID)
		checkEqual(t, "channels after rollback", cs, []storage.Channel{c})
		subs, _ := tx.ChannelSubscriptions([]int64{c.ID})
		checkEqual(t, "subscriptions after rollback", subs, []storage.Subscription{sub})
		fs, _ := tx.ChannelFolders(f.r1.ID)
		checkEqual(t, "folders after rollback", fs, []storage.ChannelFolder{folder})
		uts, _ := tx.UserTopics(f.users[0].ID)
		checkEqual(t, "user topics after rollback", uts, []storage.UserTopic{ut})
		uts, _ = tx.UserTopics(f.users[1].ID)
		checkEqual(t, "other user's topics after rollback", uts, nil)
		if got, err := tx.Message(m.ID); err != nil || got.ID != m.ID {
			t.Errorf("message after rollback: %v, %v", got, err)
		}
		if ids, _ := tx.TopicMessageIDs(c.ID, "t", 10); len(ids) != 1 {
			t.Errorf("topic messages after rollback: %v", ids)
		}
	})
}

// testChannelsReadOnly checks that every write of the area fails in a View.
func (s *suite) testChannelsReadOnly(t *testing.T) {
	st, f := s.channelStore(t)
	view(t, st, func(tx storage.Tx) {
		_, delErr := tx.DeleteTopicUserTopics(1, "t")
		for i, err := range []error{
			tx.CreateUserGroups([]*storage.UserGroup{{RealmID: f.r1.ID, Name: "g", DateCreated: t0}}),
			tx.CreateChannels([]*storage.Channel{ptr(channelN(f.r1.ID, 1))}),
			tx.UpdateChannel(channelN(f.r1.ID, 1)),
			tx.CreateSubscriptions([]storage.Subscription{{UserID: f.users[0].ID, ChannelID: 1}}),
			tx.UpdateSubscription(storage.Subscription{UserID: f.users[0].ID, ChannelID: 1}),
			tx.DeleteSubscription(f.users[0].ID, 1),
			tx.CreateChannelFolder(&storage.ChannelFolder{RealmID: f.r1.ID, Name: "f"}),
			tx.UpdateChannelFolder(storage.ChannelFolder{ID: 1}),
			tx.SetUserTopic(storage.UserTopic{UserID: f.users[0].ID, ChannelID: 1, VisibilityPolicy: 1}),
			delErr,
			tx.CreateMessages([]*storage.MessageRecord{{RealmID: f.r1.ID}}),
			tx.DeleteMessages([]int64{1}),
		} {
			checkErr(t, fmt.Sprintf("write %d in a View", i), err, storage.ErrReadOnly)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// subscriptionOf returns the user's subscription to the channel, read
// through SubscriptionsOfUsers, or storage.ErrNotFound.
func subscriptionOf(tx storage.Tx, userID, channelID int64) (storage.Subscription, error) {
	subs, err := tx.SubscriptionsOfUsers([]int64{userID})
	if err != nil {
		return storage.Subscription{}, err
	}
	for _, sub := range subs {
		if sub.ChannelID == channelID {
			return sub, nil
		}
	}
	return storage.Subscription{}, storage.ErrNotFound
}
