package chat_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/sqlite"
)

// payloads returns the payloads of events as JSON, for comparison.
func payloads(t *testing.T, events []chat.Event) []string {
	t.Helper()
	out := make([]string, len(events))
	for i, e := range events {
		b, err := json.Marshal(e.Payload)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

func TestProfileScenario(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		svc := f.svc
		phone, err := svc.CreateProfileField(ctx, chat.AsUser(f.admin.ID), chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText, EditableByUser: true})
		wantNoErr(t, "CreateProfileField", err)
		mentor, err := svc.CreateProfileField(ctx, chat.AsUser(f.owner.ID), chat.NewProfileField{Name: "Mentor", Type: chat.FieldUsers, EditableByUser: true})
		wantNoErr(t, "CreateProfileField", err)
		_, err = svc.CreateProfileField(ctx, chat.AsUser(f.member.ID), chat.NewProfileField{Name: "X", Type: chat.FieldShortText})
		wantErr(t, "member creates a field", err, chat.ErrMustBeAdmin)
		_, err = svc.CreateProfileField(ctx, chat.AsUser(f.owner2.ID), chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText})
		wantNoErr(t, "same label in another organization", err)
		_, err = svc.CreateProfileField(ctx, chat.AsUser(f.owner.ID), chat.NewProfileField{Name: "Phone", Type: chat.FieldLongText})
		wantErr(t, "duplicate label", err, chat.ErrFieldLabelExists)

		fields, err := svc.ProfileFields(ctx, chat.AsUser(f.guest.ID))
		wantNoErr(t, "ProfileFields", err)
		if len(fields) != 2 || fields[0].ID != phone || fields[1].ID != mentor || fields[1].Order != 2 {
			t.Errorf("ProfileFields = %+v", fields)
		}

		wantNoErr(t, "UpdateProfileData", svc.UpdateProfileData(ctx, chat.AsUser(f.member.ID), []chat.ProfileDataEntry{
			{ID: phone, Value: chat.ProfileDataValue{String: "_555_"}},
			{ID: mentor, Value: chat.ProfileDataValue{IsList: true, UserIDs: []int64{f.admin.ID}}},
		}))
		// Fields of another organization do not exist here; nothing of a
		// failed request is applied.
		other, err := svc.ProfileFields(ctx, chat.AsUser(f.owner2.ID))
		wantNoErr(t, "ProfileFields(2)", err)
		err = svc.UpdateProfileData(ctx, chat.AsUser(f.member.ID), []chat.ProfileDataEntry{
			{ID: phone, Value: chat.ProfileDataValue{String: "changed"}},
			{ID: other[0].ID, Value: chat.ProfileDataValue{String: "x"}},
		})
		wantCodeMsg(t, "other organization's field", err, chat.CodeBadRequest, "Field id "+strconv.FormatInt(other[0].ID, 10)+" not found.")

		rendered := "<p>_555_</p>"
		want := map[string]chat.ProfileValue{
			strconv.FormatInt(phone, 10):  {Value: "_555_", RenderedValue: &rendered},
			strconv.FormatInt(mentor, 10): {Value: "[" + strconv.FormatInt(f.admin.ID, 10) + "]"},
		}
		q := chat.UserQuery{IncludeCustomProfileFields: true}
		users, err := svc.Users(ctx, chat.AsUser(f.guest.ID), q)
		wantNoErr(t, "Users", err)
		for _, u := range users {
			switch {
			case u.UserID == f.member.ID:
				diff(t, "member's profile_data", u.ProfileData, want)
			case u.IsBot:
				if u.ProfileData != nil {
					t.Errorf("bot %d has profile_data", u.UserID)
				}
			case len(u.ProfileData) != 0:
				t.Errorf("user %d has profile_data %v", u.UserID, u.ProfileData)
			}
		}
		me, err := svc.Me(ctx, chat.AsUser(f.member.ID))
		wantNoErr(t, "Me", err)
		diff(t, "Me profile_data", me.ProfileData, want)
	})
}

func TestUserAdministrationScenario(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		rec := &recorder{}
		svc, _ := newService(t, newStore, chat.Config{Events: rec})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		wantNoErr(t, "CreateOrg", err)
		boss, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "boss@example.com", FullName: "Big Boss",
			Role: chat.RoleOwner, CanChangeUserEmails: true})
		wantNoErr(t, "ProvisionUser", err)
		guest, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "guest@example.com", FullName: "Gus Guest", Role: chat.RoleGuest})
		wantNoErr(t, "ProvisionUser", err)
		rec.take()

		admin := chat.RoleAdmin
		wantErr(t, "guest to admin", svc.UpdateUser(ctx, chat.AsUser(org.UserID), guest.UserID, chat.UserUpdate{Role: &admin}), chat.ErrGuestCannotBeAdmin)
		wantErr(t, "new email without permission", svc.UpdateUser(ctx, chat.AsUser(org.UserID), guest.UserID,
			chat.UserUpdate{NewEmail: ptr("g@example.com")}), chat.ErrCannotChangeEmails)
		member := chat.RoleMember
		wantNoErr(t, "UpdateUser", svc.UpdateUser(ctx, chat.AsUser(boss.UserID), guest.UserID, chat.UserUpdate{
			Role: &member, FullName: ptr("Gus Member"), NewEmail: ptr("gus@example.com")}))
		got := payloads(t, rec.take())
		id := strconv.FormatInt(guest.UserID, 10)
		diff(t, "events", got, []string{
			`{"op":"update","person":{"delivery_email":"gus@example.com","user_id":` + id + `},"type":"realm_user"}`,
			`{"op":"update","person":{"role":400,"user_id":` + id + `},"type":"realm_user"}`,
			`{"op":"update","person":{"full_name":"Gus Member","user_id":` + id + `},"type":"realm_user"}`,
			`{"op":"update","person":{"new_email":"gus@example.com","user_id":` + id + `},"type":"realm_user"}`,
		})
		u, err := svc.User(ctx, chat.AsUser(org.UserID), guest.UserID, chat.UserQuery{})
		wantNoErr(t, "User", err)
		if u.Email != "gus@example.com" || u.FullName != "Gus Member" || u.Role != chat.RoleMember {
			t.Errorf("after UpdateUser: %+v", u)
		}
		// With two owners one may go; then the other is the only one.
		wantNoErr(t, "demote an owner", svc.UpdateUser(ctx, chat.AsUser(boss.UserID), org.UserID, chat.UserUpdate{Role: &member}))
		wantErr(t, "the only owner", svc.UpdateUser(ctx, chat.AsUser(boss.UserID), boss.UserID, chat.UserUpdate{Role: &member}), chat.ErrLastOwner)
		rec.take()

		wantNoErr(t, "UpdateStatus", svc.UpdateStatus(ctx, chat.AsUser(guest.UserID), chat.StatusUpdate{StatusText: ptr(" Lunch "), EmojiName: ptr("+1")}))
		diff(t, "status events", payloads(t, rec.take()), []string{
			`{"emoji_code":"1f44d","emoji_name":"+1","reaction_type":"unicode_emoji","status_text":"Lunch","type":"user_status","user_id":` + id + `}`,
		})
		wantNoErr(t, "UpdateStatus away", svc.UpdateStatus(ctx, chat.AsUser(guest.UserID), chat.StatusUpdate{Away: ptr(true)}))
		diff(t, "away events", payloads(t, rec.take()), []string{`{"away":true,"type":"user_status","user_id":` + id + `}`})

		field, err := svc.CreateProfileField(ctx, chat.AsUser(boss.UserID), chat.NewProfileField{Name: "Bio", Type: chat.FieldLongText, EditableByUser: true})
		wantNoErr(t, "CreateProfileField", err)
		if ev := rec.take(); len(ev) != 1 || ev[0].Payload["type"] != "custom_profile_fields" || !ev[0].AllUsers || ev[0].UserIDs != nil {
			t.Errorf("custom_profile_fields events = %+v", ev)
		}
		fid := strconv.FormatInt(field, 10)
		wantNoErr(t, "UpdateProfileData", svc.UpdateProfileData(ctx, chat.AsUser(guest.UserID), []chat.ProfileDataEntry{{ID: field, Value: chat.ProfileDataValue{String: "hi"}}}))
		wantNoErr(t, "unchanged", svc.UpdateProfileData(ctx, chat.AsUser(guest.UserID), []chat.ProfileDataEntry{{ID: field, Value: chat.ProfileDataValue{String: "hi"}}}))
		wantNoErr(t, "remove", svc.UpdateProfileData(ctx, chat.AsUser(guest.UserID), []chat.ProfileDataEntry{{ID: field, Value: chat.ProfileDataValue{Null: true}}}))
		diff(t, "profile events", payloads(t, rec.take()), []string{
			`{"op":"update","person":{"custom_profile_field":{"id":` + fid + `,"rendered_value":"\u003cp\u003ehi\u003c/p\u003e","value":"hi"},"user_id":` + id + `},"type":"realm_user"}`,
			`{"op":"update","person":{"custom_profile_field":{"id":` + fid + `,"value":null},"user_id":` + id + `},"type":"realm_user"}`,
		})
	})
}

func TestJWTFirstLoginSetsDateJoined(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		secret := []byte("secret-secret-secret-secret-1234")
		svc, clock := newService(t, newStore, chat.Config{JWTSecret: secret})
		ctx := t.Context()
		org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
		wantNoErr(t, "CreateOrg", err)
		later := clock.Advance(time.Hour)
		token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"email": "Owner@Example.com"}).SignedString(secret)
		wantNoErr(t, "sign", err)
		res, err := svc.FetchAPIKeyJWT(ctx, "anything", token, true)
		wantNoErr(t, "FetchAPIKeyJWT", err)
		if res.APIKey != org.APIKey || res.Email != "owner@example.com" || res.User == nil || !res.User.DateJoined.Equal(later) || res.User.ProfileData != nil {
			t.Errorf("FetchAPIKeyJWT = %+v, user %+v", res, res.User)
		}
	})
}

// TestStatusAndProfileSurviveRestart reopens a SQLite store and finds a
// user's status, presence setting and profile data as they were.
func TestStatusAndProfileSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chat.db")
	open := func() *chat.Service {
		st, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return chat.New(st, chat.Config{PasswordCost: bcrypt.MinCost})
	}
	ctx := t.Context()
	svc := open()
	org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", OwnerEmail: "owner@example.com", OwnerName: "Olivia Owner"})
	wantNoErr(t, "CreateOrg", err)
	emoji, err := svc.ProvisionRealmEmoji(ctx, org.RealmID, "party", org.UserID)
	wantNoErr(t, "ProvisionRealmEmoji", err)
	field, err := svc.CreateProfileField(ctx, chat.AsUser(org.UserID), chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText})
	wantNoErr(t, "CreateProfileField", err)
	wantNoErr(t, "UpdateStatus", svc.UpdateStatus(ctx, chat.AsUser(org.UserID), chat.StatusUpdate{StatusText: ptr("Away 🏖️ é"), EmojiName: ptr("party"), Away: ptr(true)}))
	wantNoErr(t, "UpdateProfileData", svc.UpdateProfileData(ctx, chat.AsUser(org.UserID), []chat.ProfileDataEntry{{ID: field, Value: chat.ProfileDataValue{String: "**555**"}}}))
	wantNoErr(t, "Close", svc.Close())

	svc = open()
	defer svc.Close()
	st, err := svc.UserStatus(ctx, chat.AsUser(org.UserID), org.UserID)
	wantNoErr(t, "UserStatus", err)
	diff(t, "status", st, chat.StatusView{UserStatus: chat.UserStatus{Text: "Away 🏖️ é", EmojiName: "party",
		EmojiCode: strconv.FormatInt(emoji, 10), ReactionType: chat.RealmEmojiType}, Away: true})
	me, err := svc.Me(ctx, chat.AsUser(org.UserID))
	wantNoErr(t, "Me", err)
	r := "<p><strong>555</strong></p>"
	diff(t, "profile_data", me.ProfileData, map[string]chat.ProfileValue{strconv.FormatInt(field, 10): {Value: "**555**", RenderedValue: &r}})
	fields, err := svc.ProfileFields(ctx, chat.AsUser(org.UserID))
	wantNoErr(t, "ProfileFields", err)
	if len(fields) != 1 || fields[0].Name != "Phone" || fields[0].ID != field {
		t.Errorf("fields after restart: %+v", fields)
	}
}
