package chat_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestImporter drives the bulk-import entry point as an importer of
// another service's export would, and checks what it refuses, skips and
// stores, on every backend.
func TestImporter(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{MaxUploadMiB: 1})
		ctx := context.Background()
		var (
			owner, member int64
			ids           []int64
			fileURL       string
		)
		realm, err := svc.Import(ctx, chat.ImportOrganization{Name: " Acme ", Host: "Acme.Example.com"}, func(im *chat.Importer) error {
			var err error
			if _, _, err := im.CreateUser(chat.ImportUser{FullNames: []string{"", "a*b"}, LocalPart: "x"}); !errors.Is(err, chat.ErrImportNoName) {
				t.Errorf("CreateUser without a valid name: %v", err)
			}
			var name string
			owner, name, err = im.CreateUser(chat.ImportUser{FullNames: []string{"  ", "Ann Lee"}, Email: "not an address",
				LocalPart: "U1", Role: chat.RoleMember, Active: true, Timezone: "Nowhere/City"})
			if err != nil || name != "Ann Lee" {
				return errors.Join(err, errors.New("name "+name))
			}
			if err := im.SetRole(owner, chat.RoleOwner); err != nil {
				return err
			}
			if member, _, err = im.CreateUser(chat.ImportUser{FullNames: []string{"Bo"}, Email: "bo@example.com", Active: true}); err != nil {
				return err
			}
			if _, _, err := im.CreateUser(chat.ImportUser{FullNames: []string{"Bo Two"}, Email: "BO@example.com"}); !errors.Is(err, chat.ErrImportEmailTaken) {
				t.Errorf("CreateUser with a taken address: %v", err)
			}
			if _, err := im.CreateEmoji("Bad Name"); !errors.Is(err, chat.ErrInvalidEmojiName) {
				t.Errorf("CreateEmoji with a bad name: %v", err)
			}
			if _, err := im.CreateEmoji("party_parrot"); err != nil {
				return err
			}
			cid, cname, err := im.CreateChannel(chat.ImportChannel{Name: "general", CreatorID: owner, Members: []int64{owner, member, owner}})
			if err != nil || cname != "general" {
				return errors.Join(err, errors.New("channel "+cname))
			}
			if _, cname, _ = im.CreateChannel(chat.ImportChannel{Name: " General ", CreatorID: owner}); cname != "General-2" {
				t.Errorf("second channel named general: %q", cname)
			}
			if _, err := im.StoreFile(owner, "big.bin", "", bytes.NewReader(make([]byte, 1<<20+1))); !errors.Is(err, chat.ErrBlobTooLarge) {
				t.Errorf("StoreFile over the limit: %v", err)
			}
			if fileURL, err = im.StoreFile(owner, "notes.txt", "text/plain", strings.NewReader("hello")); err != nil {
				return err
			}
			if topic, ok := im.Topic("  Launch plan  "); !ok || topic != "Launch plan" {
				t.Errorf("Topic: %q %v", topic, ok)
			}
			sent := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			ids, err = im.AddMessages([]chat.ImportMessage{
				{SenderID: owner, ChannelID: cid, Topic: "launch", Content: "hi @**Bo** [notes](" + fileURL + ")", Sent: sent, Client: "test"},
				{SenderID: owner, ChannelID: cid, Topic: "launch", Content: " \n ", Sent: sent},
				{SenderID: member, DirectUserIDs: []int64{owner, member}, Content: "psst", Sent: sent, Edited: sent.Add(time.Minute)},
			})
			if err != nil {
				return err
			}
			if ids[0] == 0 || ids[1] != 0 || ids[2] <= ids[0] {
				t.Errorf("AddMessages IDs: %v", ids)
			}
			for _, name := range []string{"party_parrot", "+1", "no_such_emoji"} {
				ok, err := im.AddReaction(ids[0], member, name)
				if err != nil || ok != (name != "no_such_emoji") {
					t.Errorf("AddReaction(%s) = %v, %v", name, ok, err)
				}
			}
			if _, err := im.AddReaction(ids[0], member, "thumbs_up"); !errors.Is(err, chat.ErrReactionExists) {
				t.Errorf("AddReaction under another name of the same emoji: %v", err)
			}
			return nil
		})
		wantNoErr(t, "Import", err)
		diff(t, "realm", []string{realm.Name, realm.Host, realm.URL}, []string{"Acme", "acme.example.com", "http://acme.example.com"})

		res, err := svc.GetMessages(ctx, chat.AsUser(member), chat.GetMessagesRequest{MessageIDs: ids[:1]})
		wantNoErr(t, "GetMessages", err)
		if len(res.Messages) != 1 {
			t.Fatalf("GetMessages: %d messages", len(res.Messages))
		}
		m := res.Messages[0]
		if m.Content != "hi @**Bo** [notes]("+fileURL+")" || m.Subject != "launch" || m.Client != "test" {
			t.Errorf("imported message: %+v", m)
		}
		// Read, since imported; mentioned, since rendered.
		if m.Flags == nil {
			t.Fatal("no flags")
		}
		diff(t, "flags", *m.Flags, []string{"read", "mentioned"})
		var names []string
		for _, r := range m.Reactions {
			names = append(names, r.EmojiName)
		}
		diff(t, "reactions", names, []string{"party_parrot", "+1"})

		_, err = svc.Import(ctx, chat.ImportOrganization{Host: "acme.example.com"}, func(*chat.Importer) error { return nil })
		wantCodeMsg(t, "Import to a taken host", err, chat.CodeBadRequest, "An organization with host acme.example.com already exists")
		_, err = svc.Import(ctx, chat.ImportOrganization{Host: "bad host"}, func(*chat.Importer) error { return nil })
		wantCodeMsg(t, "Import to an invalid host", err, chat.CodeBadRequest, "Invalid host: bad host")
		failed := errors.New("failed")
		_, err = svc.Import(ctx, chat.ImportOrganization{Host: "gone.example.com"}, func(im *chat.Importer) error {
			if _, err := im.StoreFile(owner, "x.txt", "", strings.NewReader("x")); err != nil {
				return err
			}
			return failed
		})
		wantErr(t, "Import whose fn fails", err, failed)
		if _, err := svc.Import(ctx, chat.ImportOrganization{Host: "gone.example.com"}, func(*chat.Importer) error { return nil }); err != nil {
			t.Errorf("the host of a failed import stays free: %v", err)
		}
	})
}
