package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/teamchat/chat/storage"
)

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

// testSubscriberCounts checks storage.SubscriberCounts, a backend's own
// SubscriberCountsTx or its derivation: the subscriptions of each channel
// that has any, channels without none.
func (s *suite) testSubscriberCounts(t *testing.T) {
	st, f := s.channelStore(t)
	var chans []storage.Channel
	update(t, st, func(tx storage.Tx) {
		chans = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2), channelN(f.r1.ID, 3))
		if err := tx.CreateSubscriptions([]storage.Subscription{
			{UserID: f.users[0].ID, ChannelID: chans[0].ID, Color: "#000"}, {UserID: f.users[1].ID, ChannelID: chans[0].ID, Color: "#000"},
			{UserID: f.users[2].ID, ChannelID: chans[0].ID, Color: "#000"}, {UserID: f.users[1].ID, ChannelID: chans[2].ID, Color: "#000"},
		}); err != nil {
			t.Fatal(err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := storage.SubscriberCounts(tx, []int64{chans[0].ID, chans[1].ID, chans[2].ID, chans[2].ID + 100})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "SubscriberCounts", got, map[int64]int{chans[0].ID: 3, chans[2].ID: 1})
		none, err := storage.SubscriberCounts(tx, nil)
		if err != nil || len(none) != 0 {
			t.Errorf("SubscriberCounts(nil) = %v, %v", none, err)
		}
	})
}

// testActiveSubscribers checks storage.ActiveSubscribers, a backend's own
// ActiveSubscribersTx or its derivation: each channel's subscribers that are
// active, in ID order; channels without any have no entry.
func (s *suite) testActiveSubscribers(t *testing.T) {
	st, f := s.channelStore(t)
	var chans []storage.Channel
	update(t, st, func(tx storage.Tx) {
		chans = createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2), channelN(f.r1.ID, 3), channelN(f.r1.ID, 4))
		if err := tx.CreateSubscriptions([]storage.Subscription{
			{UserID: f.users[2].ID, ChannelID: chans[0].ID, Color: "#000"}, {UserID: f.users[0].ID, ChannelID: chans[0].ID, Color: "#000"},
			{UserID: f.users[1].ID, ChannelID: chans[0].ID, Color: "#000"}, {UserID: f.users[1].ID, ChannelID: chans[2].ID, Color: "#000"},
			{UserID: f.users[2].ID, ChannelID: chans[3].ID, Color: "#000"},
		}); err != nil {
			t.Fatal(err)
		}
		u := f.users[1]
		u.IsActive = false
		if err := tx.UpdateUser(u); err != nil {
			t.Fatal(err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := storage.ActiveSubscribers(tx, f.r1.ID, []int64{chans[0].ID, chans[1].ID, chans[2].ID, chans[3].ID, chans[3].ID + 100})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ActiveSubscribers", got, map[int64][]int64{
			chans[0].ID: {f.users[0].ID, f.users[2].ID}, chans[3].ID: {f.users[2].ID},
		})
		other, err := storage.ActiveSubscribers(tx, f.r2.ID, []int64{chans[0].ID})
		if err != nil || len(other) != 0 {
			t.Errorf("ActiveSubscribers of another realm = %v, %v; want none", other, err)
		}
		none, err := storage.ActiveSubscribers(tx, f.r1.ID, nil)
		if err != nil || len(none) != 0 {
			t.Errorf("ActiveSubscribers(nil) = %v, %v", none, err)
		}
	})
}

// testActiveSubscribersAfterWrites reads ActiveSubscribers in write
// transactions after each kind of write that changes them (a subscription
// made or removed, a user deactivated or reactivated, a deactivated user
// subscribed, a write rolled back): a backend that keeps the answers of
// one transaction for the next must forget them at each, and one that
// keeps a user's activity beside their subscriptions must keep it right.
func (s *suite) testActiveSubscribersAfterWrites(t *testing.T) {
	st, f := s.channelStore(t)
	u0, u1, u2 := f.users[0].ID, f.users[1].ID, f.users[2].ID
	var a, b int64
	update(t, st, func(tx storage.Tx) {
		chans := createChannels(t, tx, channelN(f.r1.ID, 1), channelN(f.r1.ID, 2))
		a, b = chans[0].ID, chans[1].ID
		if err := tx.CreateSubscriptions([]storage.Subscription{
			{UserID: u0, ChannelID: a, Color: "#000"}, {UserID: u1, ChannelID: a, Color: "#000"}, {UserID: u0, ChannelID: b, Color: "#000"},
		}); err != nil {
			t.Fatal(err)
		}
	})
	read := func(step string, realmID int64, want map[int64][]int64) {
		t.Helper()
		update(t, st, func(tx storage.Tx) {
			got, err := storage.ActiveSubscribers(tx, realmID, []int64{a, b})
			if err != nil {
				t.Fatal(err)
			}
			checkEqual(t, "ActiveSubscribers "+step, got, want)
		})
	}
	setActive := func(tx storage.Tx, id int64, active bool) {
		t.Helper()
		u, err := tx.User(id)
		if err != nil {
			t.Fatal(err)
		}
		u.IsActive = active
		if err := tx.UpdateUser(u); err != nil {
			t.Fatal(err)
		}
	}
	read("at first", f.r1.ID, map[int64][]int64{a: {u0, u1}, b: {u0}})
	read("for another realm", f.r2.ID, map[int64][]int64{})
	update(t, st, func(tx storage.Tx) {
		if err := tx.CreateSubscriptions([]storage.Subscription{{UserID: u2, ChannelID: a, Color: "#000"}}); err != nil {
			t.Fatal(err)
		}
	})
	read("after a subscription", f.r1.ID, map[int64][]int64{a: {u0, u1, u2}, b: {u0}})
	update(t, st, func(tx storage.Tx) {
		if err := tx.DeleteSubscription(u1, a); err != nil {
			t.Fatal(err)
		}
	})
	read("after an unsubscription", f.r1.ID, map[int64][]int64{a: {u0, u2}, b: {u0}})
	update(t, st, func(tx storage.Tx) { setActive(tx, u0, false) })
	read("after a deactivation", f.r1.ID, map[int64][]int64{a: {u2}})
	update(t, st, func(tx storage.Tx) { setActive(tx, u0, true) })
	read("after a reactivation", f.r1.ID, map[int64][]int64{a: {u0, u2}, b: {u0}})
	errRollback := errors.New("rolled back")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.CreateSubscriptions([]storage.Subscription{{UserID: u1, ChannelID: b, Color: "#000"}}); err != nil {
			t.Fatal(err)
		}
		got, err := storage.ActiveSubscribers(tx, f.r1.ID, []int64{b})
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "ActiveSubscribers in the transaction that subscribes", got, map[int64][]int64{b: {u0, u1}})
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatalf("Update = %v, want the callback's error", err)
	}
	read("after a rolled-back subscription", f.r1.ID, map[int64][]int64{a: {u0, u2}, b: {u0}})
	update(t, st, func(tx storage.Tx) {
		setActive(tx, u1, false)
		if err := tx.CreateSubscriptions([]storage.Subscription{{UserID: u1, ChannelID: b, Color: "#000"}}); err != nil {
			t.Fatal(err)
		}
	})
	read("after subscribing a deactivated user", f.r1.ID, map[int64][]int64{a: {u0, u2}, b: {u0}})
	update(t, st, func(tx storage.Tx) { setActive(tx, u1, true) })
	read("after that user's reactivation", f.r1.ID, map[int64][]int64{a: {u0, u2}, b: {u0, u1}})
}
