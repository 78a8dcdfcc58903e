package storagetest

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

// Uploads and push.

// attachmentN returns an attachment of the user with every field set,
// distinct for each i.
func attachmentN(u storage.UserRecord, i int) storage.Attachment {
	return storage.Attachment{
		RealmID:     u.RealmID,
		OwnerID:     u.ID,
		PathID:      pathID(u.RealmID, i),
		Name:        "Report ünïcödé (" + string(rune('a'+i)) + ").pdf",
		Size:        int64(1000 + i),
		ContentType: "application/pdf",
		CreateTime:  t0.Add(time.Duration(i) * time.Minute),
	}
}

func pathID(realmID int64, i int) string {
	return itoa(realmID) + "/0a/abcdefghijklmnopqrstuvw" + string(rune('a'+i)) + "/Report-" + itoa(int64(i)) + ".pdf"
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func (s *suite) testAttachments(t *testing.T) {
	st := s.store(t)
	var (
		r1, r2 storage.Realm
		u1, u2 storage.UserRecord
		a1, a2 storage.Attachment
	)
	update(t, st, func(tx storage.Tx) {
		r1 = createRealm(t, tx, realmN(1))
		r2 = createRealm(t, tx, realmN(2))
		u1 = createUser(t, tx, userN(r1.ID, 1))
		u2 = createUser(t, tx, userN(r2.ID, 2))
		a1 = attachmentN(u1, 1)
		if err := tx.CreateAttachment(&a1); err != nil {
			t.Fatalf("CreateAttachment: %v", err)
		}
		a2 = attachmentN(u1, 2)
		if err := tx.CreateAttachment(&a2); err != nil {
			t.Fatalf("CreateAttachment: %v", err)
		}
		if a1.ID <= 0 || a2.ID <= a1.ID {
			t.Errorf("attachment IDs %d, %d: want positive and increasing", a1.ID, a2.ID)
		}
		dup := attachmentN(u2, 1)
		dup.PathID = a1.PathID
		checkErr(t, "CreateAttachment(same path)", tx.CreateAttachment(&dup), storage.ErrExists)
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.AttachmentByPath(r1.ID, a1.PathID)
		if err != nil {
			t.Fatalf("AttachmentByPath: %v", err)
		}
		if d := gocmp.Diff(a1, got); d != "" {
			t.Errorf("AttachmentByPath round trip (-want +got):\n%s", d)
		}
		_, err = tx.AttachmentByPath(r2.ID, a1.PathID)
		checkErr(t, "AttachmentByPath(other realm)", err, storage.ErrNotFound)
		_, err = tx.AttachmentByPath(r1.ID, a1.PathID+"x")
		checkErr(t, "AttachmentByPath(unknown)", err, storage.ErrNotFound)
		used, err := tx.UploadSpaceUsed(r1.ID)
		if err != nil || used != a1.Size+a2.Size {
			t.Errorf("UploadSpaceUsed(r1) = %d, %v; want %d", used, err, a1.Size+a2.Size)
		}
		used, err = tx.UploadSpaceUsed(r2.ID)
		if err != nil || used != 0 {
			t.Errorf("UploadSpaceUsed(r2) = %d, %v; want 0", used, err)
		}
		ids, err := tx.AttachmentMessages(a1.ID)
		if err != nil || len(ids) != 0 {
			t.Errorf("AttachmentMessages before linking = %v, %v; want none", ids, err)
		}
	})
	update(t, st, func(tx storage.Tx) {
		for _, m := range []int64{30, 10, 20, 10} {
			if err := tx.LinkAttachment(a1.ID, m); err != nil {
				t.Errorf("LinkAttachment(%d): %v", m, err)
			}
		}
		checkErr(t, "LinkAttachment(unknown attachment)", tx.LinkAttachment(999, 1), storage.ErrNotFound)
	})
	// A failed transaction leaves no attachment and no link behind.
	boom := errors.New("boom")
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		a := attachmentN(u1, 3)
		if err := tx.CreateAttachment(&a); err != nil {
			return err
		}
		if err := tx.LinkAttachment(a2.ID, 40); err != nil {
			return err
		}
		return boom
	})
	checkErr(t, "failed Update", err, boom)
	view(t, st, func(tx storage.Tx) {
		ids, err := tx.AttachmentMessages(a1.ID)
		if d := gocmp.Diff([]int64{10, 20, 30}, ids); err != nil || d != "" {
			t.Errorf("AttachmentMessages: %v (-want +got):\n%s", err, d)
		}
		ids, err = tx.AttachmentMessages(a2.ID)
		if err != nil || len(ids) != 0 {
			t.Errorf("AttachmentMessages after rollback = %v, %v; want none", ids, err)
		}
		_, err = tx.AttachmentByPath(r1.ID, pathID(r1.ID, 3))
		checkErr(t, "AttachmentByPath(rolled back)", err, storage.ErrNotFound)
		used, _ := tx.UploadSpaceUsed(r1.ID)
		if used != a1.Size+a2.Size {
			t.Errorf("UploadSpaceUsed after rollback = %d, want %d", used, a1.Size+a2.Size)
		}
		a := attachmentN(u1, 4)
		checkErr(t, "CreateAttachment in View", tx.CreateAttachment(&a), storage.ErrReadOnly)
		checkErr(t, "LinkAttachment in View", tx.LinkAttachment(a1.ID, 50), storage.ErrReadOnly)
		checkErr(t, "UnlinkAttachment in View", tx.UnlinkAttachment(a1.ID, 10), storage.ErrReadOnly)
	})
	update(t, st, func(tx storage.Tx) {
		for _, link := range [][2]int64{{a1.ID, 20}, {a1.ID, 99}, {999, 10}} {
			if err := tx.UnlinkAttachment(link[0], link[1]); err != nil {
				t.Errorf("UnlinkAttachment(%d, %d): %v", link[0], link[1], err)
			}
		}
	})
	view(t, st, func(tx storage.Tx) {
		ids, err := tx.AttachmentMessages(a1.ID)
		if d := gocmp.Diff([]int64{10, 30}, ids); err != nil || d != "" {
			t.Errorf("AttachmentMessages after unlinking 20: %v (-want +got):\n%s", err, d)
		}
	})
}

func (s *suite) testPushTokens(t *testing.T) {
	st := s.store(t)
	var u1, u2 storage.UserRecord
	tok := func(u storage.UserRecord, token string) storage.PushToken {
		return storage.PushToken{UserID: u.ID, Kind: "apns", Token: token, AppID: "org.example.app", CreateTime: t0}
	}
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		for _, pt := range []storage.PushToken{tok(u1, "ff00"), tok(u1, "00aa"), tok(u2, "ff00")} {
			if err := tx.AddPushToken(pt); err != nil {
				t.Errorf("AddPushToken(%v): %v", pt, err)
			}
		}
		checkErr(t, "AddPushToken(again)", tx.AddPushToken(tok(u1, "ff00")), storage.ErrExists)
		other := tok(u1, "ff00")
		other.Kind = "fcm"
		if err := tx.AddPushToken(other); err != nil {
			t.Errorf("AddPushToken(other kind): %v", err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.PushTokens(u1.ID)
		fcm := tok(u1, "ff00")
		fcm.Kind = "fcm"
		want := []storage.PushToken{tok(u1, "ff00"), tok(u1, "00aa"), fcm}
		if d := gocmp.Diff(want, got); err != nil || d != "" {
			t.Errorf("PushTokens: %v (-want +got):\n%s", err, d)
		}
		checkErr(t, "AddPushToken in View", tx.AddPushToken(tok(u2, "01")), storage.ErrReadOnly)
	})
}

func (s *suite) testDevices(t *testing.T) {
	st := s.store(t)
	var (
		u1, u2     storage.UserRecord
		d1, d2, d3 storage.Device
	)
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		for _, d := range []*storage.Device{&d1, &d2, &d3} {
			*d = storage.Device{UserID: u1.ID, RealmID: r.ID, CreateTime: t0}
		}
		d2.UserID = u2.ID
		for _, d := range []*storage.Device{&d1, &d2, &d3} {
			if err := tx.CreateDevice(d); err != nil {
				t.Fatalf("CreateDevice: %v", err)
			}
		}
		if d1.ID <= 0 || d2.ID <= d1.ID || d3.ID <= d2.ID {
			t.Errorf("device IDs %d, %d, %d: want positive and increasing", d1.ID, d2.ID, d3.ID)
		}
	})
	key := append([]byte{0x31}, make([]byte, 32)...)
	key[5] = 0xfe
	update(t, st, func(tx storage.Tx) {
		d1.PushKey, d1.PushKeyID = key, 4294967295
		d1.TokenKind, d1.TokenID = "fcm", "AAECAwQFBgc="
		d1.BouncerPublicKey, d1.EncryptedPushRegistration = "bpk", "epr"
		if err := tx.UpdateDevice(d1); err != nil {
			t.Fatalf("UpdateDevice: %v", err)
		}
		key[5] = 0 // the store keeps its own copy
		if err := tx.DeleteDevice(d3.ID); err != nil {
			t.Fatalf("DeleteDevice: %v", err)
		}
		checkErr(t, "DeleteDevice(again)", tx.DeleteDevice(d3.ID), storage.ErrNotFound)
		checkErr(t, "UpdateDevice(deleted)", tx.UpdateDevice(d3), storage.ErrNotFound)
	})
	key[5] = 0xfe
	view(t, st, func(tx storage.Tx) {
		got, err := tx.Device(d1.ID)
		if d := gocmp.Diff(d1, got); err != nil || d != "" {
			t.Errorf("Device round trip: %v (-want +got):\n%s", err, d)
		}
		got.PushKey[1] = 7 // must not alias stored state
		if again, _ := tx.Device(d1.ID); !gocmp.Equal(d1, again) {
			t.Errorf("Device returned a key aliasing stored state")
		}
		_, err = tx.Device(d3.ID)
		checkErr(t, "Device(deleted)", err, storage.ErrNotFound)
		list, err := tx.Devices(u1.ID)
		if d := gocmp.Diff([]storage.Device{d1}, list); err != nil || d != "" {
			t.Errorf("Devices(u1): %v (-want +got):\n%s", err, d)
		}
		list, err = tx.Devices(u2.ID)
		if d := gocmp.Diff([]storage.Device{d2}, list); err != nil || d != "" {
			t.Errorf("Devices(u2): %v (-want +got):\n%s", err, d)
		}
		list, err = tx.Devices(999)
		if err != nil || len(list) != 0 {
			t.Errorf("Devices(unknown) = %v, %v; want none", list, err)
		}
		checkErr(t, "DeleteDevice in View", tx.DeleteDevice(d1.ID), storage.ErrReadOnly)
	})
}

// testAttachmentsOfOwner checks Attachments and DeleteAttachment: a
// user's attachments in ID order, and a removal that takes the links and
// the space used with it, and is undone with its transaction.
func (s *suite) testAttachmentsOfOwner(t *testing.T) {
	st := s.store(t)
	var (
		u1, u2     storage.UserRecord
		a1, a2, a3 storage.Attachment
		realmID    int64
	)
	update(t, st, func(tx storage.Tx) {
		r := createRealm(t, tx, realmN(1))
		realmID = r.ID
		u1 = createUser(t, tx, userN(r.ID, 1))
		u2 = createUser(t, tx, userN(r.ID, 2))
		a1, a2, a3 = attachmentN(u1, 1), attachmentN(u2, 2), attachmentN(u1, 3)
		for _, a := range []*storage.Attachment{&a1, &a2, &a3} {
			if err := tx.CreateAttachment(a); err != nil {
				t.Fatalf("CreateAttachment: %v", err)
			}
		}
		if err := tx.LinkAttachment(a3.ID, 7); err != nil {
			t.Fatal(err)
		}
	})
	view(t, st, func(tx storage.Tx) {
		got, err := tx.Attachments(u1.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEqual(t, "Attachments(u1)", got, []storage.Attachment{a1, a3})
		none, err := tx.Attachments(999999)
		if err != nil || none == nil || len(none) != 0 {
			t.Errorf("Attachments(unknown) = %#v, %v; want an empty list", none, err)
		}
	})
	err := st.Update(context.Background(), func(tx storage.Tx) error {
		if err := tx.DeleteAttachment(a3.ID); err != nil {
			return err
		}
		return errTest
	})
	checkErr(t, "failed Update", err, errTest)
	update(t, st, func(tx storage.Tx) {
		if ids, _ := tx.AttachmentMessages(a3.ID); len(ids) != 1 {
			t.Errorf("links after a rolled-back removal: %v", ids)
		}
		if err := tx.DeleteAttachment(a3.ID); err != nil {
			t.Fatalf("DeleteAttachment: %v", err)
		}
		checkErr(t, "DeleteAttachment(again)", tx.DeleteAttachment(a3.ID), storage.ErrNotFound)
	})
	view(t, st, func(tx storage.Tx) {
		got, _ := tx.Attachments(u1.ID)
		checkEqual(t, "Attachments after removal", got, []storage.Attachment{a1})
		_, err := tx.AttachmentByPath(realmID, a3.PathID)
		checkErr(t, "AttachmentByPath(removed)", err, storage.ErrNotFound)
		if ids, _ := tx.AttachmentMessages(a3.ID); len(ids) != 0 {
			t.Errorf("links of a removed attachment: %v", ids)
		}
		if used, _ := tx.UploadSpaceUsed(realmID); used != a1.Size+a2.Size {
			t.Errorf("UploadSpaceUsed after removal = %d, want %d", used, a1.Size+a2.Size)
		}
	})
}
