package chat_test

import (
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestAttachmentsListAndRemove checks Attachments and DeleteAttachment on
// every backend: a user's files with the messages that link them, the
// organization's space used, removal by the owner only, and that a
// removed file no longer opens.
func TestAttachmentsListAndRemove(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		member, owner := chat.AsUser(f.member.ID), chat.AsUser(f.owner.ID)
		upload := func(as chat.Actor, name, body string) string {
			t.Helper()
			up, err := f.svc.UploadFile(ctx, as, chat.Upload{Filename: name, Body: strings.NewReader(body)})
			wantNoErr(t, "UploadFile "+name, err)
			return up.URL
		}
		linked := upload(member, "linked.txt", "12345")
		upload(member, "alone.txt", "123")
		upload(owner, "owners.txt", "1234567")
		msg, err := f.svc.SendMessage(ctx, member, chat.SendMessageRequest{Type: "direct",
			To: &chat.MessageTo{IDs: []int64{f.owner.ID}}, Content: "see [the file](" + linked + ")"})
		wantNoErr(t, "SendMessage", err)
		sent, _, err := f.svc.GetMessage(ctx, member, msg, chat.MessageFormat{ApplyMarkdown: true})
		wantNoErr(t, "GetMessage", err)

		got, err := f.svc.Attachments(ctx, member)
		wantNoErr(t, "Attachments", err)
		if len(got.Attachments) != 2 {
			t.Fatalf("Attachments: %d files, want 2", len(got.Attachments))
		}
		first, second := got.Attachments[0], got.Attachments[1]
		want := chat.AttachmentsResult{UploadSpaceUsed: 15, Attachments: []chat.AttachmentView{
			{ID: first.ID, Name: "linked.txt", PathID: strings.TrimPrefix(linked, "/user_uploads/"), Size: 5,
				CreateTime: first.CreateTime, Messages: []chat.AttachmentMessage{{ID: msg, DateSent: sent.Timestamp * 1000}}},
			{ID: second.ID, Name: "alone.txt", PathID: second.PathID, Size: 3, CreateTime: second.CreateTime,
				Messages: []chat.AttachmentMessage{}},
		}}
		diff(t, "Attachments", got, want)
		if first.CreateTime != t0.Unix()*1000 {
			t.Errorf("create_time %d, want %d", first.CreateTime, t0.Unix()*1000)
		}

		wantErr(t, "another user's file", f.svc.DeleteAttachment(ctx, owner, first.ID), chat.ErrInvalidAttachment)
		wantErr(t, "an unknown file", f.svc.DeleteAttachment(ctx, member, 999999), chat.ErrInvalidAttachment)
		wantNoErr(t, "DeleteAttachment", f.svc.DeleteAttachment(ctx, member, first.ID))
		got, err = f.svc.Attachments(ctx, member)
		wantNoErr(t, "Attachments after removal", err)
		if len(got.Attachments) != 1 || got.Attachments[0].ID != second.ID || got.UploadSpaceUsed != 10 {
			t.Errorf("after removal: %+v", got)
		}
		_, _, err = f.svc.OpenAttachment(ctx, member, f.realm, strings.TrimPrefix(linked, "/user_uploads/"+itoa(f.realm)+"/"))
		wantErr(t, "opening a removed file", err, chat.ErrFileNotFound)
	})
}
