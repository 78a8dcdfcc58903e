package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestProfileFieldAdministration updates, reorders and deletes custom
// profile fields on every backend, with their events and refusals.
func TestProfileFieldAdministration(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		admin := chat.AsUser(f.admin.ID)
		phone, err := f.svc.CreateProfileField(ctx, admin, chat.NewProfileField{Name: "Phone", Type: chat.FieldShortText, EditableByUser: true})
		wantNoErr(t, "create Phone", err)
		team, err := f.svc.CreateProfileField(ctx, admin, chat.NewProfileField{Name: "Team", Type: chat.FieldChoice,
			FieldData: json.RawMessage(`{"a":{"text":"Red","order":"1"}}`)})
		wantNoErr(t, "create Team", err)
		wantNoErr(t, "a value", f.svc.UpdateProfileData(ctx, chat.AsUser(f.member.ID), []chat.ProfileDataEntry{{ID: phone, Value: chat.ProfileDataValue{String: "555"}}}))
		st, err := f.svc.Register(ctx, chat.AsUser(f.member.ID), chat.RegisterRequest{EventTypes: []string{"custom_profile_fields"}})
		wantNoErr(t, "Register", err)

		wantErr(t, "a member updates", f.svc.UpdateProfileField(ctx, chat.AsUser(f.member.ID), phone,
			chat.ProfileFieldUpdate{Name: ptr("x")}), chat.ErrMustBeAdmin)
		wantCodeMsg(t, "an unknown field", f.svc.UpdateProfileField(ctx, admin, 9999, chat.ProfileFieldUpdate{Name: ptr("x")}),
			chat.CodeBadRequest, "Field id 9999 not found.")
		wantErr(t, "a taken label", f.svc.UpdateProfileField(ctx, admin, phone, chat.ProfileFieldUpdate{Name: ptr("Team")}),
			chat.ErrFieldLabelExists)
		wantErr(t, "a blank label", f.svc.UpdateProfileField(ctx, admin, phone, chat.ProfileFieldUpdate{Name: ptr(" ")}), chat.ErrLabelBlank)
		wantErr(t, "choices without any", f.svc.UpdateProfileField(ctx, admin, team,
			chat.ProfileFieldUpdate{FieldData: json.RawMessage(`{}`)}), chat.ErrFieldNoChoices)
		wantNoErr(t, "update", f.svc.UpdateProfileField(ctx, admin, phone, chat.ProfileFieldUpdate{Name: ptr("Mobile"),
			Hint: ptr("With country code"), Required: ptr(true)}))
		wantErr(t, "an order missing a field", f.svc.ReorderProfileFields(ctx, admin, []int64{team}), chat.ErrInvalidFieldOrder)
		wantNoErr(t, "reorder", f.svc.ReorderProfileFields(ctx, admin, []int64{team, phone}))
		fields, err := f.svc.ProfileFields(ctx, chat.AsUser(f.member.ID))
		wantNoErr(t, "ProfileFields", err)
		diff(t, "fields", fields, []chat.ProfileField{
			{ID: team, RealmID: f.realm, Name: "Team", Type: chat.FieldChoice, FieldData: `{"a":{"order":"1","text":"Red"}}`, Order: 1},
			{ID: phone, RealmID: f.realm, Name: "Mobile", Hint: "With country code", Type: chat.FieldShortText, Order: 2,
				Required: true, EditableByUser: true},
		})
		wantNoErr(t, "delete", f.svc.DeleteProfileField(ctx, admin, phone))
		wantCodeMsg(t, "delete again", f.svc.DeleteProfileField(ctx, admin, phone), chat.CodeBadRequest, "Field id "+itoa(phone)+" not found.")
		u, err := f.svc.User(ctx, chat.AsUser(f.member.ID), f.member.ID, chat.UserQuery{IncludeCustomProfileFields: true})
		wantNoErr(t, "User", err)
		diff(t, "the member's profile after the delete", u.ProfileData, map[string]chat.ProfileValue{})

		var counts []int
		for _, e := range queueEvents(t, f, f.member.ID, st["queue_id"].(string)) {
			counts = append(counts, len(e["fields"].([]any)))
		}
		diff(t, "custom_profile_fields events", counts, []int{2, 2, 1})
	})
}

func TestProfileFieldFlagsOnUpdate(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		admin := chat.AsUser(f.admin.ID)
		create := func(name string, typ chat.FieldType, summary bool) int64 {
			id, err := f.svc.CreateProfileField(ctx, admin, chat.NewProfileField{Name: name, Type: typ, DisplayInProfileSummary: summary})
			wantNoErr(t, "create "+name, err)
			return id
		}
		first := create("First", chat.FieldShortText, true)
		create("Second", chat.FieldShortText, true)
		third := create("Third", chat.FieldShortText, false)
		people := create("People", chat.FieldUsers, false)

		wantErr(t, "a third summary field", f.svc.UpdateProfileField(ctx, admin, third,
			chat.ProfileFieldUpdate{DisplayInProfileSummary: ptr(true)}), chat.ErrSummaryFieldLimit)
		wantErr(t, "a users field in the summary", f.svc.UpdateProfileField(ctx, admin, people,
			chat.ProfileFieldUpdate{DisplayInProfileSummary: ptr(true)}), chat.ErrSummaryFieldType)
		wantErr(t, "a users field for matching", f.svc.UpdateProfileField(ctx, admin, people,
			chat.ProfileFieldUpdate{UseForUserMatching: ptr(true)}), chat.ErrUserMatchingFieldType)
		// A field already in the summary stays there when it changes.
		wantNoErr(t, "a summary field renamed", f.svc.UpdateProfileField(ctx, admin, first,
			chat.ProfileFieldUpdate{Name: ptr("Primary"), DisplayInProfileSummary: ptr(true), UseForUserMatching: ptr(true)}))
		fields, err := f.svc.ProfileFields(ctx, admin)
		wantNoErr(t, "ProfileFields", err)
		diff(t, "the renamed field", fields[0], chat.ProfileField{ID: first, RealmID: f.realm, Name: "Primary", Type: chat.FieldShortText,
			Order: 1, DisplayInProfileSummary: true, UseForUserMatching: true})
	})
}
