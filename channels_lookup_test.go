package chat_test

import (
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestChannelLookups checks ChannelIDByName, ChannelSubscribers and
// IsSubscribed for each role, on a public and a private channel, on every
// backend.
func TestChannelLookups(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, admin, member, guest := chat.AsUser(f.owner.ID), chat.AsUser(f.admin.ID), chat.AsUser(f.member.ID), chat.AsUser(f.guest.ID)
		create := func(name string, private bool, ids ...int64) int64 {
			t.Helper()
			_, err := f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{
				Subscriptions: []chat.ChannelSpec{{Name: name}}, InviteOnly: private,
				Principals: &chat.Principals{IDs: ids},
			})
			wantNoErr(t, "Subscribe "+name, err)
			id, err := f.svc.ChannelIDByName(ctx, owner, name)
			wantNoErr(t, "ChannelIDByName "+name, err)
			return id
		}
		public := create("Public Square", false, f.owner.ID, f.member.ID)
		private := create("Back Room", true, f.owner.ID, f.guest.ID)

		// By name, without regard to case, for those who may see it.
		id, err := f.svc.ChannelIDByName(ctx, member, "public SQUARE")
		wantNoErr(t, "member, public", err)
		if id != public {
			t.Errorf("ChannelIDByName = %d, want %d", id, public)
		}
		_, err = f.svc.ChannelIDByName(ctx, member, "Back Room")
		wantCodeMsg(t, "member, private", err, chat.CodeBadRequest, "Invalid channel name 'Back Room'")
		_, err = f.svc.ChannelIDByName(ctx, guest, "Public Square")
		wantCodeMsg(t, "guest, public unsubscribed", err, chat.CodeBadRequest, "Invalid channel name 'Public Square'")
		_, err = f.svc.ChannelIDByName(ctx, member, "nowhere")
		wantCodeMsg(t, "unknown", err, chat.CodeBadRequest, "Invalid channel name 'nowhere'")
		id, err = f.svc.ChannelIDByName(ctx, admin, "back room")
		wantNoErr(t, "administrator, private", err)
		if id != private {
			t.Errorf("ChannelIDByName(admin) = %d, want %d", id, private)
		}

		// Subscribers.
		for _, tc := range []struct {
			name    string
			as      chat.Actor
			channel int64
			want    []int64
			err     error
		}{
			{"member, public", member, public, []int64{f.owner.ID, f.member.ID}, nil},
			{"administrator, public", admin, public, []int64{f.owner.ID, f.member.ID}, nil},
			{"guest, public unsubscribed", guest, public, nil, chat.ErrInvalidChannelID},
			{"guest, private subscribed", guest, private, []int64{f.owner.ID, f.guest.ID}, nil},
			{"administrator, private", admin, private, []int64{f.owner.ID, f.guest.ID}, nil},
			{"member, private", member, private, nil, chat.ErrInvalidChannelID},
			{"unknown", member, 999999, nil, chat.ErrInvalidChannelID},
		} {
			got, err := f.svc.ChannelSubscribers(ctx, tc.as, tc.channel)
			if tc.err != nil {
				wantErr(t, tc.name, err, tc.err)
				continue
			}
			wantNoErr(t, tc.name, err)
			diff(t, tc.name, got, tc.want)
		}
		// A private channel whose messages a user may read, through
		// can_subscribe_group, without being subscribed: its subscribers
		// stay hidden.
		_, err = f.svc.Subscribe(ctx, owner, chat.SubscribeRequest{
			Subscriptions: []chat.ChannelSpec{{Name: "Open Door"}}, InviteOnly: true,
			CanSubscribeGroup: &chat.GroupSetting{Members: []int64{f.visEveryone.ID}, Subgroups: []int64{}},
		})
		wantNoErr(t, "Subscribe Open Door", err)
		door, err := f.svc.ChannelIDByName(ctx, chat.AsUser(f.visEveryone.ID), "Open Door")
		wantNoErr(t, "ChannelIDByName(can_subscribe_group)", err)
		_, err = f.svc.ChannelSubscribers(ctx, chat.AsUser(f.visEveryone.ID), door)
		wantErr(t, "can_subscribe_group, unsubscribed", err, chat.ErrPrivateChannelSubscribers)

		// Deactivated subscribers are not listed.
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, owner, f.member.ID))
		got, err := f.svc.ChannelSubscribers(ctx, admin, public)
		wantNoErr(t, "after deactivation", err)
		diff(t, "after deactivation", got, []int64{f.owner.ID})

		// Subscription status.
		for _, tc := range []struct {
			name          string
			as            chat.Actor
			user, channel int64
			want          bool
			err           error
		}{
			{"guest of a subscribed guest", guest, f.guest.ID, private, true, nil},
			{"administrator of a guest", admin, f.guest.ID, private, true, nil},
			{"administrator of an unsubscribed user", admin, f.admin.ID, private, false, nil},
			{"owner of a member", owner, f.visNobody.ID, public, false, nil},
			{"user of another organization", owner, f.owner2.ID, public, false, chat.ErrNoSuchUser},
			{"channel the caller may not see", guest, f.owner.ID, public, false, chat.ErrInvalidChannelID},
		} {
			got, err := f.svc.IsSubscribed(ctx, tc.as, tc.user, tc.channel)
			if tc.err != nil {
				wantErr(t, tc.name, err, tc.err)
				continue
			}
			wantNoErr(t, tc.name, err)
			if got != tc.want {
				t.Errorf("%s: IsSubscribed = %v, want %v", tc.name, got, tc.want)
			}
		}
	})
}
