package storagetest

import (
	"testing"
	"time"

	"github.com/teamchat/chat/storage"
)

func (s *suite) testUserTopics(t *testing.T) {
	st, f := s.channelStore(t)
	var ch []storage.Channel
	update(t, st, func(tx storage.Tx) { ch = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2)) })
	u0, u1 := f.users[0].ID, f.users[1].ID
	muted := storage.UserTopic{UserID: u0, ChannelID: ch[1].ID, Topic: "Straße ✓", VisibilityPolicy: storage.TopicMuted, LastUpdated: t0}
	followed := storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "b", VisibilityPolicy: storage.TopicFollowed, LastUpdated: t0.Add(time.Second)}
	empty := storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "", VisibilityPolicy: storage.TopicUnmuted, LastUpdated: t0}
	other := storage.UserTopic{UserID: u1, ChannelID: ch[1].ID, Topic: "STRASSE ✓", VisibilityPolicy: storage.TopicFollowed, LastUpdated: t0}
	keep := storage.UserTopic{UserID: u1, ChannelID: ch[1].ID, Topic: "kept", VisibilityPolicy: storage.TopicMuted, LastUpdated: t0}
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
		renamed.Topic, renamed.VisibilityPolicy, renamed.LastUpdated = "B", storage.TopicMuted, t0.Add(time.Hour)
		if err := tx.SetUserTopic(renamed); err != nil {
			t.Fatal(err)
		}
		followed = renamed
		if err := tx.SetUserTopic(storage.UserTopic{UserID: u0, ChannelID: ch[0].ID, Topic: "", VisibilityPolicy: storage.TopicInherit, LastUpdated: t0}); err != nil {
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
