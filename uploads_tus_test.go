package chat_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/s3test"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/blobfs"
	"github.com/teamchat/chat/storage/blobs3"
	"github.com/teamchat/chat/storage/memory"
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

// TestCollectOrphanedFiles: a stored file that no attachment names and no
// resumable upload writes is removed once it is old; attachments and
// uploads in progress stay.
func TestCollectOrphanedFiles(t *testing.T) {
	blobs, err := blobfs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, func(*testing.T) storage.Store { return memory.New() }, chat.Config{Blobs: blobs})
	ctx := t.Context()
	me := chat.AsUser(f.member.ID)
	res, err := f.svc.UploadFile(ctx, me, chat.Upload{Filename: "kept.txt", Body: strings.NewReader("kept")})
	wantNoErr(t, "UploadFile", err)
	up, err := f.svc.CreateResumableUpload(ctx, me, 10, map[string]string{"filename": "partial.txt"})
	wantNoErr(t, "CreateResumableUpload", err)
	_, err = f.svc.AppendResumableUpload(ctx, me, up.ID, 0, strings.NewReader("12345"))
	wantNoErr(t, "append", err)
	orphan := itoa(f.realm) + "/ab/0123456789abcdef/orphan.txt"
	if _, err := blobs.Put(ctx, orphan, strings.NewReader("lost"), 10); err != nil {
		t.Fatal(err)
	}
	n, err := f.svc.CollectOrphanedFiles(ctx)
	wantNoErr(t, "CollectOrphanedFiles while recent", err)
	if n != 0 {
		t.Errorf("collected %d recent files", n)
	}
	// The files' times are the machine's; the service's clock moves past
	// them by a year.
	f.clock.Advance(time.Until(f.clock.Now()).Abs() + 365*24*time.Hour)
	n, err = f.svc.CollectOrphanedFiles(ctx)
	wantNoErr(t, "CollectOrphanedFiles", err)
	if n != 1 {
		t.Errorf("collected %d files, want 1", n)
	}
	if _, err := blobs.Size(ctx, orphan); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the orphan is still there: %v", err)
	}
	path := strings.TrimPrefix(res.URL, "/user_uploads/")
	if _, err := blobs.Size(ctx, path); err != nil {
		t.Errorf("the attachment's file: %v", err)
	}
}

// TestResumableUploadsOnS3: on the S3 blob store (CHAT_TEST_S3_URL), an
// upload that is finished becomes a readable attachment, and the
// collection of expired uploads removes an unfinished one with its
// multipart upload, keeping only the finished file.
func TestResumableUploadsOnS3(t *testing.T) {
	raw := s3test.URL(t)
	cfg, err := blobs3.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blobs3.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, func(*testing.T) storage.Store { return memory.New() }, chat.Config{Blobs: blobs, MaxUploadMiB: 20})
	ctx := t.Context()
	me := chat.AsUser(f.member.ID)
	data := strings.Repeat("0123456789abcdef", 12<<16) // 12 MiB
	finished, err := f.svc.CreateResumableUpload(ctx, me, int64(len(data)), map[string]string{"filename": "whole.bin"})
	wantNoErr(t, "CreateResumableUpload", err)
	abandoned, err := f.svc.CreateResumableUpload(ctx, me, int64(len(data)), map[string]string{"filename": "half.bin"})
	wantNoErr(t, "CreateResumableUpload", err)
	for _, off := range []int{0, 7 << 20} {
		end := min(off+7<<20, len(data))
		_, err := f.svc.AppendResumableUpload(ctx, me, finished.ID, int64(off), strings.NewReader(data[off:end]))
		wantNoErr(t, "append", err)
	}
	_, err = f.svc.AppendResumableUpload(ctx, me, abandoned.ID, 0, strings.NewReader(data[:7<<20]))
	wantNoErr(t, "append", err)
	st, err := f.svc.ResumableUploadState(ctx, me, finished.ID)
	wantNoErr(t, "ResumableUploadState", err)
	if st.Result == nil {
		t.Fatalf("the upload of every byte has no result: %+v", st)
	}
	path := strings.TrimPrefix(st.Result.URL, "/user_uploads/")
	_, rest, _ := strings.Cut(path, "/")
	_, blob, err := f.svc.OpenAttachment(ctx, me, f.realm, rest)
	wantNoErr(t, "OpenAttachment", err)
	got, err := io.ReadAll(blob)
	blob.Close()
	if err != nil || string(got) != data {
		t.Errorf("read %d bytes (%v) that differ from the %d uploaded", len(got), err, len(data))
	}

	f.clock.Advance(chat.TusUploadLifetime + time.Minute)
	n, err := f.svc.CollectExpiredUploads(ctx)
	wantNoErr(t, "CollectExpiredUploads", err)
	if n != 2 {
		t.Errorf("collected %d uploads, want 2 (the state of the finished one, and the abandoned one)", n)
	}
	keys, uploads := s3test.Objects(t, raw)
	if diff := cmp.Diff([]string{path}, keys); diff != "" || uploads != 0 {
		t.Errorf("left in the bucket: %d multipart uploads, and objects (-want +got):\n%s", uploads, diff)
	}
}
