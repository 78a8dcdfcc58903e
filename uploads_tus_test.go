package chat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestResumableUploadLifetime: an upload expires TusUploadLifetime after
// its last write, and the collection removes it; termination ends one at
// once; a finished upload's file stays when its state goes.
func TestResumableUploadLifetime(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		me := chat.AsUser(f.member.ID)
		create := func() chat.ResumableUpload {
			t.Helper()
			up, err := f.svc.CreateResumableUpload(ctx, me, 10, map[string]string{"filename": "notes.txt"})
			wantNoErr(t, "CreateResumableUpload", err)
			if want := f.clock.Now().Add(chat.TusUploadLifetime); !up.Expires.Equal(want) {
				t.Errorf("Expires = %v, want %v", up.Expires, want)
			}
			return up
		}
		stale, kept, ended := create(), create(), create()
		_, err := f.svc.AppendResumableUpload(ctx, me, stale.ID, 0, strings.NewReader("12345"))
		wantNoErr(t, "append", err)

		// A write keeps an upload alive.
		f.clock.Advance(chat.TusUploadLifetime - time.Minute)
		up, err := f.svc.AppendResumableUpload(ctx, me, kept.ID, 0, strings.NewReader("12345"))
		wantNoErr(t, "append to kept", err)
		if want := f.clock.Now().Add(chat.TusUploadLifetime); !up.Expires.Equal(want) {
			t.Errorf("Expires after a write = %v, want %v", up.Expires, want)
		}
		wantNoErr(t, "terminate", f.svc.TerminateResumableUpload(ctx, me, ended.ID))
		_, err = f.svc.ResumableUploadState(ctx, me, ended.ID)
		wantErr(t, "a terminated upload", err, chat.ErrUploadNotFound)
		wantErr(t, "terminate another's", f.svc.TerminateResumableUpload(ctx, chat.AsUser(f.admin.ID), kept.ID), chat.ErrUploadNotFound)

		f.clock.Advance(2 * time.Minute)
		n, err := f.svc.CollectExpiredUploads(ctx)
		wantNoErr(t, "CollectExpiredUploads", err)
		if n != 1 {
			t.Errorf("collected %d uploads, want 1 (the stale one)", n)
		}
		_, err = f.svc.ResumableUploadState(ctx, me, stale.ID)
		wantErr(t, "the expired upload", err, chat.ErrUploadNotFound)
		st, err := f.svc.ResumableUploadState(ctx, me, kept.ID)
		wantNoErr(t, "the kept upload", err)
		if st.Offset != 5 {
			t.Errorf("kept offset %d, want 5", st.Offset)
		}

		// Finished, the file outlives the state.
		done, err := f.svc.AppendResumableUpload(ctx, me, kept.ID, 5, strings.NewReader("67890"))
		wantNoErr(t, "finish", err)
		wantNoErr(t, "terminate a finished upload", f.svc.TerminateResumableUpload(ctx, me, kept.ID))
		path := strings.TrimPrefix(done.Result.URL, "/user_uploads/")
		realm, rest, _ := strings.Cut(path, "/")
		_, blob, err := f.svc.OpenAttachment(ctx, me, f.realm, rest)
		wantNoErr(t, "the finished file in realm "+realm, err)
		blob.Close()
	})
}
