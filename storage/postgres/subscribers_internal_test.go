package postgres

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
)

// TestSubscriberListsBounds: the lists hold at most maxListedChannels
// channels and maxListedSubscribers user IDs; one more starts them over,
// a list larger than the bound is not kept, and a list given or taken
// back is a copy.
func TestSubscriberListsBounds(t *testing.T) {
	var c subscriberLists
	for id := range int64(maxListedChannels) {
		c.put(id, id+100, []int64{id})
	}
	if len(c.channels) != maxListedChannels || c.weight != maxListedChannels {
		t.Fatalf("after %d lists: %d channels, weight %d", maxListedChannels, len(c.channels), c.weight)
	}
	c.put(1, 7, []int64{1, 2}) // replaces channel 1's list: no room needed
	if len(c.channels) != maxListedChannels || c.weight != maxListedChannels+1 {
		t.Errorf("after replacing a list: %d channels, weight %d", len(c.channels), c.weight)
	}
	c.put(maxListedChannels, 1, []int64{5})
	if len(c.channels) != 1 || c.weight != 1 {
		t.Errorf("one channel more: %d channels, weight %d; want the lists started over", len(c.channels), c.weight)
	}
	big := make([]int64, maxListedSubscribers)
	c.put(2, 2, big[:maxListedSubscribers-1])
	if len(c.channels) != 2 || c.weight != maxListedSubscribers {
		t.Errorf("a list that fills the rest: %d channels, weight %d; want it beside the first", len(c.channels), c.weight)
	}
	c.put(3, 3, []int64{1, 2})
	if len(c.channels) != 1 || c.weight != 2 {
		t.Errorf("past the weight: %d channels, weight %d; want the lists started over", len(c.channels), c.weight)
	}
	c.put(3, 4, append(big, 1))
	if len(c.channels) != 0 || c.weight != 0 {
		t.Errorf("a list over the bound: %d channels, weight %d; want it and the channel's old list gone", len(c.channels), c.weight)
	}
	given := []int64{1, 2}
	c.put(9, 9, given)
	given[0] = 5
	got, ok := c.get(9, 9)
	if !ok || !cmp.Equal(got, []int64{1, 2}) {
		t.Errorf("get = %v, %v after the caller changed what it gave; want [1 2]", got, ok)
	}
	got[1] = 5
	if again, _ := c.get(9, 9); !cmp.Equal(again, []int64{1, 2}) {
		t.Errorf("get = %v after the caller changed what it got; want [1 2]", again)
	}
	if _, ok := c.get(9, 8); ok {
		t.Error("get of another version found a list")
	}
}

// TestSubscriberListsLost: a channel whose version the statement was told
// the store has, but whose list the store no longer has (another
// transaction replaced it between the two looks), is reported, not
// answered.
func TestSubscriberListsLost(t *testing.T) {
	pgtest.Required(t)
	s, err := Open(context.Background(), pgtest.Schema(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var realmID, channelID, userID int64
	err = s.Update(ctx, func(tx storage.Tx) error {
		realm := storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		u := storage.UserRecord{RealmID: realm.ID, Email: "a@example.com", FullName: "A", IsActive: true, APIKey: "key-a"}
		if err := tx.CreateUser(&u); err != nil {
			return err
		}
		ch := storage.Channel{RealmID: realm.ID, Name: "general"}
		if err := tx.CreateChannels([]*storage.Channel{&ch}); err != nil {
			return err
		}
		realmID, channelID, userID = realm.ID, ch.ID, u.ID
		return tx.CreateSubscriptions([]storage.Subscription{{UserID: u.ID, ChannelID: ch.ID, Color: "#000"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := s.pool.QueryRow(ctx, `SELECT subscribers_version FROM channels WHERE id = $1`, channelID).Scan(&version); err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(st storage.Tx) error {
		out := map[int64][]int64{}
		lost, err := st.(*tx).activeSubscribers(out, realmID, []int64{channelID}, []int64{version})
		if err != nil {
			return err
		}
		if !cmp.Equal(lost, []int64{channelID}) || len(out) != 0 {
			t.Errorf("a list the store does not have: lost %v, answered %v; want lost [%d]", lost, out, channelID)
		}
		got, err := storage.ActiveSubscribers(st, realmID, []int64{channelID})
		if want := map[int64][]int64{channelID: {userID}}; err != nil || !cmp.Equal(got, want) {
			t.Errorf("ActiveSubscribers = %v, %v; want %v", got, err, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
