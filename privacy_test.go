package chat_test

import (
	"fmt"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestHiddenAddressesNameNobody checks that a real address hidden from the
// actor by its owner's email visibility finds nobody wherever an address
// names a user (sender and dm narrows, direct-message recipients, the
// principals of subscribe and unsubscribe), answering as for an unknown
// address, while those who may see it, and the placeholder address, still
// find the user.
func TestHiddenAddressesNameNobody(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member, admin := chat.AsUser(f.member.ID), chat.AsUser(f.admin.ID)
		hidden := f.visAdmins // visible to administrators only
		placeholder := fmt.Sprintf("user%d@localhost", hidden.ID)

		for _, tc := range []struct {
			name   string
			narrow []chat.NarrowElement
		}{
			{"sender", []chat.NarrowElement{{Operator: "sender", Operand: hidden.Email}}},
			{"dm", []chat.NarrowElement{{Operator: "dm", Operand: hidden.Email}}},
			{"dm-including", []chat.NarrowElement{{Operator: "dm-including", Operand: hidden.Email}}},
		} {
			req := chat.GetMessagesRequest{Anchor: ptr("newest"), NumBefore: ptr[int64](10), Narrow: tc.narrow}
			_, err := f.svc.GetMessages(ctx, member, req)
			wantCodeMsg(t, tc.name+" narrow by a hidden address", err, chat.CodeBadNarrow, "Invalid narrow operator: unknown user "+hidden.Email)
			_, err = f.svc.GetMessages(ctx, admin, req)
			wantNoErr(t, tc.name+" narrow by an address the administrator sees", err)
			req.Narrow = []chat.NarrowElement{{Operator: tc.narrow[0].Operator, Operand: placeholder}}
			_, err = f.svc.GetMessages(ctx, member, req)
			wantNoErr(t, tc.name+" narrow by the placeholder address", err)
		}

		send := func(as chat.Actor, to string) error {
			_, err := f.svc.SendMessage(ctx, as, chat.SendMessageRequest{Type: "direct",
				To: &chat.MessageTo{Names: []string{to}}, Content: "hello"})
			return err
		}
		wantCodeMsg(t, "direct message to a hidden address", send(member, hidden.Email),
			chat.CodeBadRequest, "Invalid email '"+hidden.Email+"'")
		wantNoErr(t, "direct message to the placeholder address", send(member, placeholder))
		wantNoErr(t, "administrator's direct message to the real address", send(admin, hidden.Email))

		subscribe := func(as chat.Actor, email string) error {
			_, err := f.svc.Subscribe(ctx, as, chat.SubscribeRequest{
				Subscriptions: []chat.ChannelSpec{{Name: "open"}},
				Principals:    &chat.Principals{Emails: []string{email}},
			})
			return err
		}
		wantErr(t, "subscribing a hidden address", subscribe(member, hidden.Email), chat.ErrNoSuchUser)
		wantNoErr(t, "subscribing the placeholder address", subscribe(member, placeholder))
		_, err := f.svc.Unsubscribe(ctx, admin, []string{"open"}, &chat.Principals{Emails: []string{hidden.Email}})
		wantNoErr(t, "administrator unsubscribing the real address", err)
		_, err = f.svc.Unsubscribe(ctx, member, []string{"open"}, &chat.Principals{Emails: []string{hidden.Email}})
		wantErr(t, "unsubscribing a hidden address", err, chat.ErrNoSuchUser)
	})
}
