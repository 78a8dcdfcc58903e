package chat_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/storagetest"
)

func readAll(t *testing.T, b chat.Blob) string {
	t.Helper()
	defer b.Close()
	data, err := io.ReadAll(b)
	wantNoErr(t, "reading the blob", err)
	return string(data)
}

func TestUploadAccess(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		up := func(who *account, name, body string) string {
			t.Helper()
			res, err := f.svc.UploadFile(ctx, chat.AsUser(who.ID), chat.Upload{Filename: name, Body: strings.NewReader(body)})
			wantNoErr(t, "UploadFile", err)
			if res.URL != res.URI || res.Filename != name || !strings.HasPrefix(res.URL, "/user_uploads/1/") {
				t.Fatalf("UploadFile answer %+v", res)
			}
			return strings.TrimPrefix(res.URL, "/user_uploads/1/")
		}
		canRead := func(who *account, rest, want string) {
			t.Helper()
			a, blob, err := f.svc.OpenAttachment(ctx, chat.AsUser(who.ID), f.realm, rest)
			if want == "" {
				wantErr(t, who.Email+" opening "+rest, err, chat.ErrFileNotFound)
				return
			}
			wantNoErr(t, who.Email+" opening "+rest, err)
			if got := readAll(t, blob); got != want || a.Size != int64(len(want)) {
				t.Errorf("%s read %q (size %d), want %q", who.Email, got, a.Size, want)
			}
		}
		mine := up(f.member, "notes.txt", "member's notes")
		theirs := up(f.admin, "plan.txt", "admin's plan")
		canRead(f.member, mine, "member's notes")
		canRead(f.admin, theirs, "admin's plan")
		for _, who := range []*account{f.owner, f.admin, f.moderator, f.guest, f.bot} {
			canRead(who, mine, "")
		}
		// Another organization's user, whatever realm ID they name.
		for _, realm := range []int64{f.realm, f.realm2} {
			_, _, err := f.svc.OpenAttachment(ctx, chat.AsUser(f.owner2.ID), realm, mine)
			wantErr(t, "other organization", err, chat.ErrFileNotFound)
		}

		// The member sends message 42 linking both files: only their own
		// is claimed.
		content := "See [notes](/user_uploads/1/" + mine + ") and [plan](/user_uploads/1/" + theirs + ")."
		wantNoErr(t, "linking", f.svc.LinkAttachmentsForTest(ctx, f.member.ID, 42, content))
		// Without the messages code's rule nobody else may read it yet.
		canRead(f.admin, mine, "")

		// With a rule: everyone but the guest can read message 42.
		var asked []int64
		f.svc.SetMessageReadCheckerForTest(func(tx storage.Tx, u *storage.UserRecord, messageID int64) (bool, error) {
			asked = append(asked, messageID)
			return messageID == 42 && u.Role != chat.RoleGuest, nil
		})
		canRead(f.admin, mine, "member's notes")
		canRead(f.moderator, mine, "member's notes")
		canRead(f.guest, mine, "")
		// The admin's file was not linked by the member's message.
		canRead(f.moderator, theirs, "")
		if len(asked) != 3 {
			t.Errorf("the rule was asked about messages %v, want 42 three times", asked)
		}
		// The temporary URL follows the same rule.
		_, err := f.svc.TemporaryUploadURL(ctx, chat.AsUser(f.guest.ID), f.realm, mine)
		wantErr(t, "TemporaryUploadURL for the guest", err, chat.ErrFileNotFound)
		url, err := f.svc.TemporaryUploadURL(ctx, chat.AsUser(f.admin.ID), f.realm, mine)
		wantNoErr(t, "TemporaryUploadURL", err)
		parts := strings.Split(url, "/")
		_, blob, err := f.svc.OpenTemporaryUpload(ctx, parts[3], parts[4])
		wantNoErr(t, "OpenTemporaryUpload", err)
		if got := readAll(t, blob); got != "member's notes" {
			t.Errorf("temporary download %q", got)
		}

		// A deactivated user reads nothing.
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.owner.ID), f.member.ID))
		_, _, err = f.svc.OpenAttachment(ctx, chat.AsUser(f.member.ID), f.realm, mine)
		wantErr(t, "deactivated uploader", err, chat.ErrAccountDeactivated)
		_, err = f.svc.UploadFile(ctx, chat.AsUser(f.member.ID), chat.Upload{Filename: "x", Body: strings.NewReader("x")})
		wantErr(t, "deactivated upload", err, chat.ErrAccountDeactivated)
	})
}

func TestUploadLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{MaxUploadMiB: 1})
		org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Org", Host: host1, OwnerEmail: "o@example.com",
			OwnerName: "Owner", OwnerPassword: "owner-password"})
		wantNoErr(t, "CreateOrg", err)
		_, err = svc.UploadFile(t.Context(), chat.AsUser(org.UserID), chat.Upload{Filename: "a", Body: bytes.NewReader(make([]byte, 1<<20))})
		wantNoErr(t, "1 MiB", err)
		_, err = svc.UploadFile(t.Context(), chat.AsUser(org.UserID), chat.Upload{Filename: "a", Body: bytes.NewReader(make([]byte, 1<<20+1))})
		wantCodeMsg(t, "1 MiB + 1", err, chat.CodeBadRequest,
			"File is larger than this server's configured maximum upload size (1 MiB).")
	})
}

func TestSanitizeFilename(t *testing.T) {
	for _, c := range []struct{ in, want, strict string }{
		{"report.pdf", "report.pdf", "report.pdf"},
		{"  my  report -- final .pdf ", "my-report-final-.pdf", "my-report-final-.pdf"},
		{"a/b\\c:d*e?f\"g<h>i|j", "abcdefghij", "abcdefghij"},
		{"Ｒésumé №1.txt", "Résumé-No1.txt", "Rsum-No1.txt"},
		{"日本語 ファイル.png", "日本語-ファイル.png", ".png"},
		{"Ǆemal_x.tar.gz", "DŽemal_x.tar.gz", "Demal_x.tar.gz"},
		{"", "uploaded-file", "uploaded-file"},
		{".", "uploaded-file", "uploaded-file"},
		{"..", "uploaded-file", "uploaded-file"},
		{"../..", "....", "...."},
		{"???", "uploaded-file", "uploaded-file"},
		{"e\u0301", "é", "uploaded-file"},
		{"-x-", "-x-", "-x-"},
	} {
		if got := chat.SanitizeFilename(c.in, false); got != c.want {
			t.Errorf("SanitizeFilename(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := chat.SanitizeFilename(c.in, true); got != c.strict {
			t.Errorf("SanitizeFilename(%q, strict) = %q, want %q", c.in, got, c.strict)
		}
	}
	long := strings.Repeat("ä", 150) + ".jpeg"
	got := chat.SanitizeFilename(long, false)
	if len(got) > 200 || !strings.HasSuffix(got, ".jpeg") || !strings.HasPrefix(got, "ää") {
		t.Errorf("long name sanitised to %q (%d bytes)", got, len(got))
	}
}

// TestMemBlobsConformance runs the BlobStore suite on the in-memory store
// of a Config without one.
func TestMemBlobsConformance(t *testing.T) {
	storagetest.RunBlobStore(t, func(*testing.T) storage.BlobStore { return chat.NewMemBlobsForTest() })
}
