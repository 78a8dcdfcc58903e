package storagetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/teamchat/chat/storage"
)

func checkEqual[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if diff := gocmp.Diff(want, got, equateEmpty); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

func bptr(b bool) *bool { return &b }

func ptr[T any](v T) *T { return &v }

func checkDiff(t *testing.T, what string, want, got any) {
	t.Helper()
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

// realmN returns a realm with every field set (except ID and Deactivated),
// distinct for each i.
func realmN(i int) storage.Realm {
	return storage.Realm{
		Name:                   fmt.Sprintf("Org %d", i),
		Description:            fmt.Sprintf("Org number %d.\n\nSecond paragraph, ünïcödé ✓ 'quoted' \"text\"", i),
		Host:                   fmt.Sprintf("org%d.example.com", i),
		URL:                    fmt.Sprintf("https://org%d.example.com", i),
		DateCreated:            t0.Add(time.Duration(i)*time.Hour + time.Duration(i)),
		DefaultEmailVisibility: storage.EmailVisibleAdmins,
	}
}

// userN returns an active human member of the realm with most fields set,
// distinct for each i. Its email is unique per realm, its API key unique
// across realms.
func userN(realmID int64, i int) storage.UserRecord {
	return storage.UserRecord{
		RealmID:         realmID,
		Email:           fmt.Sprintf("User%d@Example.com", i),
		FullName:        fmt.Sprintf("User Number %d", i),
		Role:            storage.RoleMember,
		IsActive:        true,
		DateJoined:      t0.Add(time.Duration(i)*time.Minute + time.Duration(i)),
		Timezone:        "Europe/Paris",
		AvatarSource:    "G",
		AvatarVersion:   1,
		APIKey:          fmt.Sprintf("key-%d-%d", realmID, i),
		PasswordHash:    fmt.Sprintf("$2a$04$hash%d", i),
		EmailVisibility: storage.EmailVisibleMembers,
	}
}

// fullBot returns a bot of the realm with every field non-zero.
func fullBot(realmID, ownerID int64) storage.UserRecord {
	return storage.UserRecord{
		RealmID:         realmID,
		Email:           "Full-Bot@Bots.Example.com",
		FullName:        "Fülly Set Bot",
		Role:            storage.RoleModerator,
		IsActive:        true,
		BotType:         storage.BotOutgoingWebhook,
		BotOwnerID:      ownerID,
		DateJoined:      t0.Add(-48*time.Hour + 1),
		LastLogin:       t0.Add(3*time.Second + 7),
		IsImportedStub:  true,
		Timezone:        "America/Argentina/Buenos_Aires",
		AvatarSource:    "U",
		AvatarVersion:   7,
		APIKey:          "full-bot-key",
		PasswordHash:    "$2a$04$fullbothash",
		EmailVisibility: storage.EmailVisibleNobody,

		CanChangeUserEmails: true,
		PresenceEnabled:     true,
		Status: storage.UserStatus{Text: "Åway 🏖️ é", EmojiName: "octopus", EmojiCode: "1f419",
			ReactionType: storage.UnicodeEmoji},
	}
}

func update(t *testing.T, st storage.Store, fn func(storage.Tx)) {
	t.Helper()
	if err := st.Update(context.Background(), func(tx storage.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, st storage.Store, fn func(storage.Tx)) {
	t.Helper()
	if err := st.View(context.Background(), func(tx storage.Tx) error { fn(tx); return nil }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func createRealm(t *testing.T, tx storage.Tx, r storage.Realm) storage.Realm {
	t.Helper()
	if err := tx.CreateRealm(&r); err != nil {
		t.Fatalf("CreateRealm(%q): %v", r.Host, err)
	}
	if r.ID <= 0 {
		t.Fatalf("CreateRealm(%q) set ID %d, want > 0", r.Host, r.ID)
	}
	return r
}

func createUser(t *testing.T, tx storage.Tx, u storage.UserRecord) storage.UserRecord {
	t.Helper()
	if err := tx.CreateUser(&u); err != nil {
		t.Fatalf("CreateUser(%q in realm %d): %v", u.Email, u.RealmID, err)
	}
	if u.ID <= 0 {
		t.Fatalf("CreateUser(%q) set ID %d, want > 0", u.Email, u.ID)
	}
	return u
}

func mustRealm(t *testing.T, tx storage.Tx, id int64) storage.Realm {
	t.Helper()
	r, err := tx.Realm(id)
	if err != nil {
		t.Fatalf("Realm(%d): %v", id, err)
	}
	return r
}

func mustRealmByHost(t *testing.T, tx storage.Tx, host string) storage.Realm {
	t.Helper()
	r, err := tx.RealmByHost(host)
	if err != nil {
		t.Fatalf("RealmByHost(%q): %v", host, err)
	}
	return r
}

func mustRealms(t *testing.T, tx storage.Tx) []storage.Realm {
	t.Helper()
	rs, err := tx.Realms()
	if err != nil {
		t.Fatalf("Realms: %v", err)
	}
	return rs
}

func mustUser(t *testing.T, tx storage.Tx, id int64) storage.UserRecord {
	t.Helper()
	u, err := tx.User(id)
	if err != nil {
		t.Fatalf("User(%d): %v", id, err)
	}
	return u
}

func mustUserByEmail(t *testing.T, tx storage.Tx, realmID int64, email string) storage.UserRecord {
	t.Helper()
	u, err := tx.UserByEmail(realmID, email)
	if err != nil {
		t.Fatalf("UserByEmail(%d, %q): %v", realmID, email, err)
	}
	return u
}

func mustUserByAPIKey(t *testing.T, tx storage.Tx, key string) storage.UserRecord {
	t.Helper()
	u, err := tx.UserByAPIKey(key)
	if err != nil {
		t.Fatalf("UserByAPIKey(%q): %v", key, err)
	}
	return u
}

func mustUsers(t *testing.T, tx storage.Tx, realmID int64, ids []int64) []storage.UserRecord {
	t.Helper()
	us, err := tx.Users(realmID, ids)
	if err != nil {
		t.Fatalf("Users(%d, %v): %v", realmID, ids, err)
	}
	return us
}

func mustUsersByRole(t *testing.T, tx storage.Tx, realmID int64, role storage.Role) []storage.UserRecord {
	t.Helper()
	us, err := storage.UsersByRole(tx, realmID, role)
	if err != nil {
		t.Fatalf("UsersByRole(%d, %d): %v", realmID, role, err)
	}
	return us
}

func mustBotsOwnedBy(t *testing.T, tx storage.Tx, ownerID int64) []storage.UserRecord {
	t.Helper()
	us, err := storage.BotsOwnedBy(tx, ownerID)
	if err != nil {
		t.Fatalf("BotsOwnedBy(%d): %v", ownerID, err)
	}
	return us
}

func mustUpdateRealm(t *testing.T, tx storage.Tx, r storage.Realm) {
	t.Helper()
	if err := tx.UpdateRealm(r); err != nil {
		t.Fatalf("UpdateRealm(%d): %v", r.ID, err)
	}
}

func mustUpdateUser(t *testing.T, tx storage.Tx, u storage.UserRecord) {
	t.Helper()
	if err := tx.UpdateUser(u); err != nil {
		t.Fatalf("UpdateUser(%d): %v", u.ID, err)
	}
}

// checkTime reports a time that is not in UTC or carries a monotonic clock
// reading: the domain stores time.Now().UTC().Round(0) and expects exactly
// that back.
func checkTime(t *testing.T, what string, got time.Time) {
	t.Helper()
	if got.Location() != time.UTC {
		t.Errorf("%s = %v has location %q, want UTC", what, got, got.Location())
	}
	if got != got.Round(0) {
		t.Errorf("%s = %v has a monotonic clock reading", what, got)
	}
}

func checkRealm(t *testing.T, what string, got, want storage.Realm) {
	t.Helper()
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	checkTime(t, what+".DateCreated", got.DateCreated)
	if got.DateCreated != want.DateCreated {
		t.Errorf("%s.DateCreated = %#v\nis cmp-equal but not == to %#v", what, got.DateCreated, want.DateCreated)
	}
}

func checkRealms(t *testing.T, what string, got, want []storage.Realm) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return // nil and empty are the same answer
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	for i := range got {
		checkRealm(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

func checkUser(t *testing.T, what string, got, want storage.UserRecord) {
	t.Helper()
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	checkTime(t, what+".DateJoined", got.DateJoined)
	checkTime(t, what+".LastLogin", got.LastLogin)
	if got != want {
		t.Errorf("%s = %#v\nis cmp-equal but not == to %#v", what, got, want)
	}
}

func checkUsers(t *testing.T, what string, got, want []storage.UserRecord) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return // nil and empty are the same answer
	}
	if len(got) != len(want) {
		t.Errorf("%s: got %d users with IDs %v, want %d with IDs %v", what, len(got), userIDs(got), len(want), userIDs(want))
		return
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
		return
	}
	for i := range got {
		checkUser(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

func sortedByID(us []storage.UserRecord) []storage.UserRecord {
	return slices.SortedFunc(slices.Values(us), func(a, b storage.UserRecord) int { return cmp.Compare(a.ID, b.ID) })
}

func userIDs(us []storage.UserRecord) []int64 {
	ids := make([]int64, len(us))
	for i := range us {
		ids[i] = us[i].ID
	}
	return ids
}

func checkErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: error %v, want %v", what, err, want)
	}
}

var t0 = time.Date(2025, time.March, 30, 12, 34, 56, 123456789, time.UTC)
