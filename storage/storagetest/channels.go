package storagetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/teamchat/chat/storage"
)

// The channel area: user groups, channels, subscriptions, channel folders,
// user topics and the minimal message store. Backends may answer an empty
// list as nil or empty, hence EquateEmpty.

var equateEmpty = cmpopts.EquateEmpty()

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
		CanAddSubscribersGroup:    storage.GroupSetting{GroupID: int64(i + 1)},
		CanRemoveSubscribersGroup: storage.GroupSetting{Members: []int64{3, int64(10 + i)}, Subgroups: []int64{2}},
		CanAdministerChannelGroup: storage.GroupSetting{Members: []int64{int64(i)}},
		CanDeleteAnyMessageGroup:  storage.GroupSetting{Subgroups: []int64{4, 5}},
		CanDeleteOwnMessageGroup:  storage.GroupSetting{},
		CanSendMessageGroup:       storage.GroupSetting{GroupID: 7},
		CanSubscribeGroup:         storage.GroupSetting{GroupID: 1},
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

func (s *suite) testChannelMessages(t *testing.T) {
	st, f := s.channelStore(t)
	var ch []storage.Channel
	update(t, st, func(tx storage.Tx) { ch = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2)) })
	msg := func(channel int64, topic string, i int) *storage.MessageRecord {
		return &storage.MessageRecord{RealmID: f.r1.ID, SenderID: f.users[i%3].ID, RecipientType: storage.RecipientChannel,
			ChannelID: channel, Topic: topic, Content: fmt.Sprintf("**m%d** ✓", i), RenderedContent: fmt.Sprintf("<p><strong>m%d</strong> ✓</p>", i),
			DateSent: t0.Add(time.Duration(i) * time.Second)}
	}
	users := []int64{f.users[0].ID, f.users[2].ID}
	direct := &storage.MessageRecord{RealmID: f.r1.ID, RecipientType: storage.RecipientDirect, DirectUserIDs: users,
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
			if w.RecipientType == storage.RecipientDirect {
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
	ut := storage.UserTopic{UserID: f.users[0].ID, Topic: "t", VisibilityPolicy: storage.TopicMuted, LastUpdated: t0}
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
		m = &storage.MessageRecord{RealmID: f.r1.ID, RecipientType: storage.RecipientChannel, ChannelID: c.ID, Topic: "t", DateSent: t0}
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
			tx.CreateMessages([]*storage.MessageRecord{{RealmID: f.r1.ID, RecipientType: storage.RecipientChannel, ChannelID: c.ID, DateSent: t0}}),
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
