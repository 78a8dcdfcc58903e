package chat_test

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// relayFunc is a PushRelay made of a function.
type relayFunc func(context.Context, chat.PushNotification) error

func (f relayFunc) Send(ctx context.Context, n chat.PushNotification) error { return f(ctx, n) }

func TestPushDevices(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		var sent []chat.PushNotification
		relayErr := error(nil)
		svc, _ := newService(t, newStore, chat.Config{Events: rec, PushRelay: relayFunc(
			func(_ context.Context, n chat.PushNotification) error {
				sent = append(sent, n)
				return relayErr
			})})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: host1, OwnerEmail: "o@example.com",
			OwnerName: "Owner", OwnerPassword: "owner-password"})
		wantNoErr(t, "CreateOrg", err)
		me := org.UserID

		wantNoErr(t, "token", svc.RegisterIOSDeviceToken(ctx, chat.AsUser(me), "AB cd", "org.example"))
		wantNoErr(t, "same token", svc.RegisterIOSDeviceToken(ctx, chat.AsUser(me), "abCD", "org.example"))

		rec.take()
		id, err := svc.RegisterClientDevice(ctx, chat.AsUser(me))
		wantNoErr(t, "RegisterClientDevice", err)
		diff(t, "device/add", rec.take(), []chat.Event{{RealmID: org.RealmID, UserIDs: []int64{me},
			Payload: map[string]any{"type": "device", "op": "add", "device_id": id}}})
		wantErr(t, "test without registration", svc.SendTestNotification(ctx, chat.AsUser(me), nil), chat.ErrNoActivePushDevice)

		key := make([]byte, 33)
		key[0] = 0x31
		s := func(v string) *string { return &v }
		keyID := uint32(3)
		wantNoErr(t, "RegisterPushDevice", svc.RegisterPushDevice(ctx, chat.AsUser(me), chat.PushRegistration{
			DeviceID: id, PushKey: s(base64.StdEncoding.EncodeToString(key)), PushKeyID: &keyID,
			TokenKind: s("apns"), TokenID: s("AAAAAAAAAAA="), BouncerPublicKey: s("b"), EncryptedPushRegistration: s("e"),
		}))
		wantNoErr(t, "SendTestNotification", svc.SendTestNotification(ctx, chat.AsUser(me), &id))
		if len(sent) != 1 || len(sent[0].Devices) != 1 || sent[0].Devices[0].DeviceID != id ||
			sent[0].Devices[0].TokenKind != "apns" || sent[0].Devices[0].PushKeyID != 3 {
			t.Errorf("sent %+v", sent)
		}
		// Failures of the relay keep their code; other errors mean no
		// connection.
		relayErr = chat.RelayError(chat.ErrPushRelayServerError, errors.New("503"))
		wantErr(t, "relay 5xx", svc.SendTestNotification(ctx, chat.AsUser(me), nil), chat.ErrPushRelayServerError)
		relayErr = errors.New("dial tcp: refused")
		wantErr(t, "relay down", svc.SendTestNotification(ctx, chat.AsUser(me), nil), chat.ErrPushFailedToConnect)

		wantNoErr(t, "RemoveClientDevice", svc.RemoveClientDevice(ctx, chat.AsUser(me), id))
		diff(t, "device/remove", rec.take(), []chat.Event{{RealmID: org.RealmID, UserIDs: []int64{me},
			Payload: map[string]any{"type": "device", "op": "remove", "device_id": id}}})
		wantErr(t, "test after removal", svc.SendTestNotification(ctx, chat.AsUser(me), nil), chat.ErrNoActivePushDevice)
	})
}
