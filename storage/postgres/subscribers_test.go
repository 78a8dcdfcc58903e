package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat/internal/pgtest"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/postgres"
)

// TestSubscriberListsFollowEveryWriter: a store keeps each channel's
// active subscribers by the channel's version (migration 27), and another
// store on the same database (another process), a tool writing SQL, and
// the store's own transactions, committed or rolled back, each change the
// list that the first store answers next.
func TestSubscriberListsFollowEveryWriter(t *testing.T) {
	pgtest.Required(t)
	dsn := pgtest.Schema(t)
	a, b := open(t, dsn), open(t, dsn)
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	var realmID, channelID int64
	var u []storage.UserRecord
	err := b.Update(ctx, func(tx storage.Tx) error {
		realm := storage.Realm{Name: "Org", Host: "org.example.com"}
		if err := tx.CreateRealm(&realm); err != nil {
			return err
		}
		realmID = realm.ID
		for _, name := range []string{"a", "b", "c", "d"} {
			user := storage.UserRecord{RealmID: realm.ID, Email: name + "@example.com", FullName: name, IsActive: true, APIKey: "key-" + name}
			if err := tx.CreateUser(&user); err != nil {
				return err
			}
			u = append(u, user)
		}
		ch := storage.Channel{RealmID: realm.ID, Name: "general"}
		if err := tx.CreateChannels([]*storage.Channel{&ch}); err != nil {
			return err
		}
		channelID = ch.ID
		return tx.CreateSubscriptions([]storage.Subscription{{UserID: u[0].ID, ChannelID: ch.ID, Color: "#000"},
			{UserID: u[1].ID, ChannelID: ch.ID, Color: "#000"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	subscribers := func(tx storage.Tx) []int64 {
		t.Helper()
		got, err := storage.ActiveSubscribers(tx, realmID, []int64{channelID})
		if err != nil {
			t.Fatal(err)
		}
		return got[channelID]
	}
	check := func(when string, want ...int64) {
		t.Helper()
		readTwice(t, a, when+": subscribers", want, subscribers)
	}
	version := func() int64 {
		t.Helper()
		return readVersion(t, a, `SELECT subscribers_version FROM channels WHERE id = $1`, channelID)
	}
	update := func(s *postgres.Store, fn func(tx storage.Tx) error) { t.Helper(); mustUpdate(t, s, fn) }
	check("at first", u[0].ID, u[1].ID)

	update(b, func(tx storage.Tx) error {
		return tx.CreateSubscriptions([]storage.Subscription{{UserID: u[2].ID, ChannelID: channelID, Color: "#000"}})
	})
	check("subscribed by another process", u[0].ID, u[1].ID, u[2].ID)

	deactivated := u[1]
	deactivated.IsActive = false
	update(b, func(tx storage.Tx) error { return tx.UpdateUser(deactivated) })
	check("a subscriber deactivated", u[0].ID, u[2].ID)

	update(b, func(tx storage.Tx) error { return tx.DeleteSubscription(u[0].ID, channelID) })
	check("unsubscribed", u[2].ID)

	subscribe := func(userID int64) {
		t.Helper()
		if _, err := b.Pool().Exec(ctx, `INSERT INTO subscriptions (user_id, channel_id, color, is_muted, pin_to_top)
			VALUES ($1, $2, '#000', false, false)`, userID, channelID); err != nil {
			t.Fatal(err)
		}
	}
	subscribe(u[3].ID)
	check("subscribed by a tool's SQL", u[2].ID, u[3].ID)

	before := version()
	update(b, func(tx storage.Tx) error {
		renamed := u[2]
		renamed.FullName = "C. C."
		if err := tx.UpdateUser(renamed); err != nil {
			return err
		}
		return tx.UpdateSubscription(storage.Subscription{UserID: u[3].ID, ChannelID: channelID, Color: "#fff", IsMuted: true})
	})
	if after := version(); after != before {
		t.Errorf("a rename and a muted subscription changed the channel's version: %d, then %d", before, after)
	}
	check("a rename and a muted subscription", u[2].ID, u[3].ID)

	errRollBack := errors.New("roll back")
	err = a.Update(ctx, func(tx storage.Tx) error {
		if err := tx.CreateSubscriptions([]storage.Subscription{{UserID: u[0].ID, ChannelID: channelID, Color: "#000"}}); err != nil {
			return err
		}
		if diff := cmp.Diff([]int64{u[0].ID, u[2].ID, u[3].ID}, subscribers(tx)); diff != "" {
			t.Errorf("in the subscribing transaction: subscribers (-want +got):\n%s", diff)
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatal(err)
	}
	check("after a subscription rolled back", u[2].ID, u[3].ID)

	// With the triggers off, a change keeps the version: the store answers
	// from its list, which shows that it keeps one.
	if _, err := b.Pool().Exec(ctx, `ALTER TABLE subscriptions DISABLE TRIGGER USER`); err != nil {
		t.Fatal(err)
	}
	subscribe(u[0].ID)
	if _, err := b.Pool().Exec(ctx, `ALTER TABLE subscriptions ENABLE TRIGGER USER`); err != nil {
		t.Fatal(err)
	}
	check("subscribed behind the triggers' back", u[2].ID, u[3].ID)
	err = b.View(ctx, func(tx storage.Tx) error {
		if diff := cmp.Diff([]int64{u[0].ID, u[2].ID, u[3].ID}, subscribers(tx)); diff != "" {
			t.Errorf("a store without the list: subscribers (-want +got):\n%s", diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := b.Pool().Exec(ctx, `TRUNCATE subscriptions`); err != nil {
		t.Fatal(err)
	}
	check("truncated by a tool")
}

// readTwice compares what read answers in a read transaction of s with
// want, twice: the second answer comes from what the store kept of the
// first.
func readTwice[T any](t *testing.T, s *postgres.Store, what string, want T, read func(storage.Tx) T) {
	t.Helper()
	for i := range 2 {
		err := s.View(context.Background(), func(tx storage.Tx) error {
			if diff := cmp.Diff(want, read(tx)); diff != "" {
				t.Errorf("%s, read %d (-want +got):\n%s", what, i+1, diff)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// readVersion answers query, which reads one version by the ID, in s.
func readVersion(t *testing.T, s *postgres.Store, query string, id int64) int64 {
	t.Helper()
	var v int64
	if err := s.Pool().QueryRow(context.Background(), query, id).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// mustUpdate runs fn in a write transaction of s, and fails t at once
// when it fails.
func mustUpdate(t *testing.T, s *postgres.Store, fn func(tx storage.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}
