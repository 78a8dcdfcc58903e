package chat_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// hiddenFrom lists, per viewer of the fixture, whose real addresses the
// viewer may not see (PROTOCOL.md B2.6; everyone sees their own record and
// bots).
func hiddenFrom(f *fixture) map[string]struct {
	viewer *account
	hidden []*account
} {
	return map[string]struct {
		viewer *account
		hidden []*account
	}{
		"owner":     {f.owner, []*account{f.visNobody}},
		"admin":     {f.admin, []*account{f.visNobody}},
		"moderator": {f.moderator, []*account{f.visAdmins, f.visNobody}},
		"member":    {f.member, []*account{f.visAdmins, f.visNobody, f.visModerators}},
		"guest":     {f.guest, []*account{f.visMembers, f.visAdmins, f.visNobody, f.visModerators}},
		"bot":       {f.bot, []*account{f.visAdmins, f.visNobody, f.visModerators}},
		// Users whose address is hidden from their peers see their own.
		"nobody-self": {f.visNobody, []*account{f.visAdmins, f.visModerators}},
		"admins-self": {f.visAdmins, []*account{f.visNobody, f.visModerators}},
	}
}

func TestUsersVisibilityMatrix(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		queries := []chat.UserQuery{
			{},
			{ClientGravatar: true},
			{IncludeCustomProfileFields: true},
			{ClientGravatar: true, IncludeCustomProfileFields: true},
		}
		for name, c := range hiddenFrom(f) {
			for _, q := range queries {
				t.Run(fmt.Sprintf("%s/%+v", name, q), func(t *testing.T) {
					hidden := map[int64]bool{}
					for _, h := range c.hidden {
						hidden[h.ID] = true
					}
					var want chat.Users
					for _, a := range f.all() {
						want = append(want, a.want(!hidden[a.ID], "localhost", q))
					}
					got, err := f.svc.Users(t.Context(), chat.AsUser(c.viewer.ID), q)
					wantNoErr(t, "Users", err)
					diff(t, "Users", got, want)

					// User and UserByEmail (placeholder form) agree.
					for _, a := range f.all() {
						u, err := f.svc.User(t.Context(), chat.AsUser(c.viewer.ID), a.ID, q)
						wantNoErr(t, "User", err)
						diff(t, fmt.Sprintf("User(%d)", a.ID), u, a.want(!hidden[a.ID], "localhost", q))
						u, err = f.svc.UserByEmail(t.Context(), chat.AsUser(c.viewer.ID), placeholder(a.ID, "localhost"), q)
						wantNoErr(t, "UserByEmail", err)
						diff(t, fmt.Sprintf("UserByEmail(placeholder %d)", a.ID), u, a.want(!hidden[a.ID], "localhost", q))
					}
				})
			}
		}
	})
}

func TestUsersSpotChecks(t *testing.T) {
	// Literal expectations, independent of the fixture's helper.
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		users, err := f.svc.Users(t.Context(), chat.AsUser(f.guest.ID), chat.UserQuery{ClientGravatar: true})
		wantNoErr(t, "Users", err)
		byID := map[int64]chat.User{}
		for _, u := range users {
			byID[u.UserID] = u
		}
		// member: visibility everyone, real address shown with its case,
		// gravatar from the lower-cased address.
		m := byID[f.member.ID]
		if m.DeliveryEmail == nil || *m.DeliveryEmail != "Member@Example.com" || m.Email != "Member@Example.com" {
			t.Errorf("member addresses: delivery %v, email %q", m.DeliveryEmail, m.Email)
		}
		if m.AvatarURL != nil {
			t.Errorf("member avatar_url = %q, want nil (client_gravatar and visible)", *m.AvatarURL)
		}
		// members-only address: hidden from a guest, placeholder email,
		// avatar URL computed by the server.
		mm := byID[f.visMembers.ID]
		if mm.DeliveryEmail != nil {
			t.Errorf("members-only delivery_email = %q, want nil for a guest", *mm.DeliveryEmail)
		}
		if want := fmt.Sprintf("user%d@localhost", f.visMembers.ID); mm.Email != want {
			t.Errorf("members-only email = %q, want %q", mm.Email, want)
		}
		if mm.AvatarURL == nil || *mm.AvatarURL != "https://secure.gravatar.com/avatar/"+md5hex("members@example.com")+"?d=identicon&version=1" {
			t.Errorf("members-only avatar_url = %v", mm.AvatarURL)
		}
		// The bot's visibility request was overridden: bots are visible.
		b := byID[f.bot.ID]
		if b.DeliveryEmail == nil || *b.DeliveryEmail != "helper-bot@example.com" || b.Email != "helper-bot@example.com" {
			t.Errorf("bot addresses: delivery %v, email %q", b.DeliveryEmail, b.Email)
		}
		if !b.IsBot || b.BotType != chat.BotGeneric || b.BotOwnerID != f.member.ID || b.Role != chat.RoleMember {
			t.Errorf("bot = %+v", b)
		}
		if got := byID[f.member.ID].Timezone; got != "Europe/Berlin" {
			t.Errorf("member timezone = %q", got)
		}
		o := byID[f.owner.ID]
		if !o.IsOwner || !o.IsAdmin || o.IsGuest || o.Role != chat.RoleOwner {
			t.Errorf("owner flags = %+v", o)
		}
		a := byID[f.admin.ID]
		if a.IsOwner || !a.IsAdmin || a.Role != chat.RoleAdmin {
			t.Errorf("admin flags = %+v", a)
		}
		g := byID[f.guest.ID]
		if !g.IsGuest || g.IsAdmin || g.Role != chat.RoleGuest {
			t.Errorf("guest flags = %+v", g)
		}
		if !byID[f.member.ID].DateJoined.Equal(time.Date(2025, 3, 30, 12, 34, 56, 789123456, time.UTC)) {
			t.Errorf("date_joined = %v", byID[f.member.ID].DateJoined)
		}
	})
}

// md5hex is the well-known digest of a few addresses, computed once outside
// the test run so that the gravatar helper is checked too.
func md5hex(s string) string {
	known := map[string]string{
		"members@example.com": "ec6d74e0e0cb2512d8c194689dd86c61",
	}
	if h, ok := known[s]; ok {
		return h
	}
	panic("no digest for " + s)
}

func TestGravatarHelper(t *testing.T) {
	// Cross-check the test helper against a literal digest.
	if got, want := gravatar("Members@Example.COM"), "https://secure.gravatar.com/avatar/"+md5hex("members@example.com")+"?d=identicon&version=1"; got != want {
		t.Errorf("gravatar = %q, want %q", got, want)
	}
}

func TestUsersOrderingAndScope(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.visEveryone.ID))

		ids := func(us chat.Users) []int64 {
			out := []int64{}
			for _, u := range us {
				out = append(out, u.UserID)
			}
			return out
		}
		var all []int64
		for _, a := range f.all() {
			all = append(all, a.ID)
		}
		got, err := f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		diff(t, "user IDs", ids(got), all)
		for _, u := range got {
			if want := u.UserID != f.visEveryone.ID; u.IsActive != want {
				t.Errorf("user %d is_active = %v, want %v", u.UserID, u.IsActive, want)
			}
		}

		// The other organization sees only its own users.
		got, err = f.svc.Users(ctx, chat.AsUser(f.only2.ID), chat.UserQuery{})
		wantNoErr(t, "Users(org 2)", err)
		diff(t, "org 2 user IDs", ids(got), []int64{f.owner2.ID, f.member2.ID, f.only2.ID})
		want2 := []chat.User{
			f.owner2.want(true, host2, chat.UserQuery{}),
			f.member2.want(false, host2, chat.UserQuery{}),
			f.only2.want(true, host2, chat.UserQuery{}),
		}
		diff(t, "org 2 users", []chat.User(got), want2)

		// user_ids: unknown and other-organization IDs are left out, the
		// order is by ID whatever the order asked, duplicates once.
		for _, c := range []struct {
			name string
			ids  []int64
			want []int64
		}{
			{"subset", []int64{f.guest.ID, f.admin.ID}, []int64{f.admin.ID, f.guest.ID}},
			{"unknown and foreign", []int64{999999, f.owner2.ID, f.bot.ID, f.only2.ID, -1, 0}, []int64{f.bot.ID}},
			{"duplicates", []int64{f.member.ID, f.member.ID, f.owner.ID}, []int64{f.owner.ID, f.member.ID}},
			{"deactivated", []int64{f.visEveryone.ID}, []int64{f.visEveryone.ID}},
			{"only unknown", []int64{424242}, []int64{}},
			{"empty", []int64{}, []int64{}},
		} {
			got, err := f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{UserIDs: c.ids})
			wantNoErr(t, c.name, err)
			diff(t, c.name, ids(got), c.want)
		}
		got, err = f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{UserIDs: []int64{f.visAdmins.ID}, ClientGravatar: true})
		wantNoErr(t, "Users(admins-only)", err)
		diff(t, "filtered user", []chat.User(got), []chat.User{f.visAdmins.want(false, "localhost", chat.UserQuery{ClientGravatar: true})})
	})
}

func TestReadsRequireActiveActor(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		read := map[string]func(actor int64) error{
			"Users": func(a int64) error { _, err := f.svc.Users(ctx, chat.AsUser(a), chat.UserQuery{}); return err },
			"User": func(a int64) error {
				_, err := f.svc.User(ctx, chat.AsUser(a), f.owner.ID, chat.UserQuery{})
				return err
			},
			"UserByEmail": func(a int64) error {
				_, err := f.svc.UserByEmail(ctx, chat.AsUser(a), "owner@example.com", chat.UserQuery{})
				return err
			},
			"Me": func(a int64) error { _, err := f.svc.Me(ctx, chat.AsUser(a)); return err },
		}
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.visEveryone.ID))
		for name, fn := range read {
			wantErr(t, name+" unknown actor", fn(987654), chat.ErrNotLoggedIn)
			wantErr(t, name+" deactivated actor", fn(f.visEveryone.ID), chat.ErrAccountDeactivated)
			wantNoErr(t, name+" active actor", fn(f.guest.ID))
		}
		wantNoErr(t, "DeactivateOrg", f.svc.DeactivateOrg(ctx, f.realm))
		for name, fn := range read {
			wantErr(t, name+" deactivated org", fn(f.member.ID), chat.ErrRealmDeactivated)
		}
		// The other organization is unaffected.
		_, err := f.svc.Users(ctx, chat.AsUser(f.owner2.ID), chat.UserQuery{})
		wantNoErr(t, "Users in org 2", err)
	})
}

func TestUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.User(ctx, chat.AsUser(f.member.ID), 999999, chat.UserQuery{})
		wantErr(t, "unknown ID", err, chat.ErrNoSuchUser)
		_, err = f.svc.User(ctx, chat.AsUser(f.member.ID), f.only2.ID, chat.UserQuery{})
		wantErr(t, "other organization's ID", err, chat.ErrNoSuchUser)
		_, err = f.svc.User(ctx, chat.AsUser(f.owner2.ID), f.owner.ID, chat.UserQuery{})
		wantErr(t, "other organization's ID, reversed", err, chat.ErrNoSuchUser)

		// Deactivated users and bots are returned.
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.owner.ID), f.member.ID))
		got, err := f.svc.User(ctx, chat.AsUser(f.guest.ID), f.member.ID, chat.UserQuery{})
		wantNoErr(t, "User(deactivated)", err)
		want := f.member.want(true, "localhost", chat.UserQuery{})
		want.IsActive = false
		diff(t, "deactivated user", got, want)
		got, err = f.svc.User(ctx, chat.AsUser(f.guest.ID), f.bot.ID, chat.UserQuery{})
		wantNoErr(t, "User(bot)", err)
		want = f.bot.want(true, "localhost", chat.UserQuery{})
		want.IsActive = false // deactivated with its owner
		diff(t, "bot", got, want)
	})
}

func TestUserByEmail(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		q := chat.UserQuery{}
		for _, c := range []struct {
			name   string
			viewer *account
			email  string
			want   *account // nil: ErrNoSuchUser
		}{
			{"real address", f.member, "everyone@example.com", f.visEveryone},
			{"real address, other case", f.member, "EVERYONE@Example.COM", f.visEveryone},
			{"mixed-case stored address, lower case", f.guest, "member@example.com", f.member},
			{"members-only, by member", f.member, "members@example.com", f.visMembers},
			{"members-only, by guest", f.guest, "members@example.com", nil},
			{"admins-only, by member", f.member, "admins@example.com", nil},
			{"admins-only, by moderator", f.moderator, "admins@example.com", nil},
			{"admins-only, by admin", f.admin, "Admins@example.com", f.visAdmins},
			{"admins-only, by owner", f.owner, "admins@example.com", f.visAdmins},
			{"moderators-only, by member", f.member, "moderators@example.com", nil},
			{"moderators-only, by moderator", f.moderator, "moderators@example.com", f.visModerators},
			{"nobody, by owner", f.owner, "nobody@example.com", nil},
			{"nobody, by self", f.visNobody, "NOBODY@example.com", f.visNobody},
			{"bot, by guest", f.guest, "helper-bot@example.com", f.bot},
			{"unknown address", f.owner, "stranger@example.com", nil},
			{"other organization's address", f.owner, "only2@example.com", nil},
			{"placeholder of hidden user", f.guest, placeholder(f.visNobody.ID, "localhost"), f.visNobody},
			{"placeholder of visible user", f.guest, placeholder(f.visEveryone.ID, "localhost"), f.visEveryone},
			{"placeholder, unknown ID", f.owner, "user999999@localhost", nil},
			{"placeholder, other organization's user", f.owner, placeholder(f.only2.ID, "localhost"), nil},
			{"placeholder, wrong domain", f.owner, placeholder(f.visNobody.ID, "example.net"), nil},
		} {
			got, err := f.svc.UserByEmail(ctx, chat.AsUser(c.viewer.ID), c.email, q)
			if c.want == nil {
				wantErr(t, c.name, err, chat.ErrNoSuchUser)
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			hidden := false
			for _, h := range hiddenFrom(f) {
				if h.viewer == c.viewer {
					for _, a := range h.hidden {
						hidden = hidden || a == c.want
					}
				}
			}
			diff(t, c.name, got, c.want.want(!hidden, "localhost", q))
		}

		// The second organization's placeholder domain is its host name.
		got, err := f.svc.UserByEmail(ctx, chat.AsUser(f.only2.ID), placeholder(f.member2.ID, host2), q)
		wantNoErr(t, "org 2 placeholder", err)
		diff(t, "org 2 placeholder", got, f.member2.want(false, host2, q))
		_, err = f.svc.UserByEmail(ctx, chat.AsUser(f.only2.ID), "member@example.com", q)
		wantErr(t, "org 2 hidden address", err, chat.ErrNoSuchUser)
		got, err = f.svc.UserByEmail(ctx, chat.AsUser(f.owner2.ID), "ONLY2@example.com", q)
		wantNoErr(t, "org 2 visible address", err)
		diff(t, "org 2 visible address", got, f.only2.want(true, host2, q))
	})
}

func TestPlaceholderDomain(t *testing.T) {
	for _, c := range []struct {
		name, host, fake, domain string
	}{
		{"localhost with port", "localhost:9991", "", "localhost"},
		{"dotted host with port", "Chat.Example.com:8443", "", "chat.example.com"},
		{"IP address", "127.0.0.1:9991", "", "localhost"},
		{"IP address, configured fallback", "127.0.0.1:9991", "fake.example.org", "fake.example.org"},
		{"IPv6 address", "[::1]:9991", "fake.example.org", "fake.example.org"},
		{"valid host ignores fallback", "chat.example.com", "fake.example.org", "chat.example.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
				svc, _ := newService(t, newStore, chat.Config{FakeEmailDomain: c.fake})
				ctx := t.Context()
				org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: c.host, OwnerEmail: "boss@example.com", OwnerName: "Boss"})
				wantNoErr(t, "CreateOrg", err)
				res, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "hidden@example.com", FullName: "Hidden",
					EmailVisibility: chat.EmailVisibleAdmins})
				wantNoErr(t, "ProvisionUser", err)
				hidden := &account{ID: res.UserID, Email: "hidden@example.com", Name: "Hidden", Role: chat.RoleMember, Vis: chat.EmailVisibleAdmins}
				u, err := svc.User(ctx, chat.AsUser(org.UserID), res.UserID, chat.UserQuery{})
				wantNoErr(t, "User", err)
				diff(t, "User", u, hidden.want(true, c.domain, chat.UserQuery{}))
				u, err = svc.UserByEmail(ctx, chat.AsUser(org.UserID), placeholder(res.UserID, c.domain), chat.UserQuery{})
				wantNoErr(t, "UserByEmail(placeholder)", err)
				if u.UserID != res.UserID {
					t.Errorf("UserByEmail(placeholder) = user %d, want %d", u.UserID, res.UserID)
				}
			})
		})
	}
}

func TestMe(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		for _, a := range []*account{f.owner, f.member, f.guest, f.visNobody, f.bot} {
			got, err := f.svc.Me(t.Context(), chat.AsUser(a.ID))
			wantNoErr(t, "Me", err)
			want := a.want(true, "localhost", chat.UserQuery{IncludeCustomProfileFields: true})
			if want.AvatarURL == nil {
				t.Fatal("expected avatar_url")
			}
			diff(t, fmt.Sprintf("Me(%s)", a.Email), got, want)
			if (got.ProfileData != nil) == got.IsBot {
				t.Errorf("Me(%s): profile_data = %v for is_bot %v", a.Email, got.ProfileData, got.IsBot)
			}
		}
	})
}

// userJSON decodes the JSON of v into generic values.
func userJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	wantNoErr(t, "json.Marshal", err)
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return out
}

func TestUsersJSON(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		users, err := f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{UserIDs: []int64{f.member.ID, f.bot.ID, f.webhook.ID, f.visNobody.ID}})
		wantNoErr(t, "Users", err)
		human := func(a *account, delivery any, email string, avatar any) map[string]any {
			return map[string]any{
				"user_id": float64(a.ID), "delivery_email": delivery, "email": email,
				"full_name": a.Name, "date_joined": t0JSON, "is_active": true,
				"is_owner": false, "is_admin": false, "is_guest": false, "is_bot": false,
				"bot_type": nil, "role": float64(400), "timezone": a.Timezone,
				"avatar_url": avatar, "avatar_version": float64(1), "is_imported_stub": false,
			}
		}
		bot := func(a *account, typ int, owner any) map[string]any {
			return map[string]any{
				"user_id": float64(a.ID), "delivery_email": a.Email, "email": a.Email,
				"full_name": a.Name, "date_joined": t0JSON, "is_active": true,
				"is_owner": false, "is_admin": false, "is_guest": false, "is_bot": true,
				"bot_type": float64(typ), "bot_owner_id": owner, "role": float64(400), "timezone": "",
				"avatar_url": gravatar(a.Email), "avatar_version": float64(1), "is_imported_stub": false,
			}
		}
		want := []any{
			human(f.member, "Member@Example.com", "Member@Example.com", gravatar("member@example.com")),
			bot(f.bot, 1, float64(f.member.ID)),
			bot(f.webhook, 2, nil),
			human(f.visNobody, nil, placeholder(f.visNobody.ID, "localhost"), gravatar("nobody@example.com")),
		}
		diff(t, "Users JSON", userJSON(t, users), want)

		// Exact bytes of one human and one bot. (json.Marshal would
		// HTML-escape the "&" of the avatar URL; the method does not.)
		b, err := users[0].MarshalJSON()
		wantNoErr(t, "Marshal", err)
		wantHuman := fmt.Sprintf(`{"user_id":%d,"delivery_email":"Member@Example.com","email":"Member@Example.com",`+
			`"full_name":"Max Member","date_joined":"2025-03-30T12:34+00:00","is_active":true,"is_owner":false,`+
			`"is_admin":false,"is_guest":false,"is_bot":false,"bot_type":null,"role":400,"timezone":"Europe/Berlin",`+
			`"avatar_url":%q,"avatar_version":1,"is_imported_stub":false}`, f.member.ID, gravatar("member@example.com"))
		if string(b) != wantHuman {
			t.Errorf("human JSON\n got %s\nwant %s", b, wantHuman)
		}
		b, err = users[2].MarshalJSON()
		wantNoErr(t, "Marshal", err)
		if !strings.Contains(string(b), `"is_bot":true,"bot_type":2,"bot_owner_id":null,"role":400`) {
			t.Errorf("ownerless bot JSON %s", b)
		}
		for _, u := range users {
			b, _ := json.Marshal(u)
			if strings.Contains(string(b), "is_deleted") || strings.Contains(string(b), "profile_data") {
				t.Errorf("unexpected key in %s", b)
			}
		}

		// profile_data appears for humans only, as an empty object.
		users, err = f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{IncludeCustomProfileFields: true, ClientGravatar: true,
			UserIDs: []int64{f.member.ID, f.bot.ID}})
		wantNoErr(t, "Users", err)
		got := userJSON(t, users).([]any)
		m := got[0].(map[string]any)
		diff(t, "human profile_data", m["profile_data"], map[string]any{})
		if v, ok := m["avatar_url"]; !ok || v != nil {
			t.Errorf("client_gravatar avatar_url = %v (present %v), want null", v, ok)
		}
		if _, ok := got[1].(map[string]any)["profile_data"]; ok {
			t.Errorf("bot has profile_data: %v", got[1])
		}

		// An empty list is an empty array.
		users, err = f.svc.Users(ctx, chat.AsUser(f.member.ID), chat.UserQuery{UserIDs: []int64{}})
		wantNoErr(t, "Users", err)
		b, err = json.Marshal(users)
		wantNoErr(t, "Marshal", err)
		if string(b) != "[]" {
			t.Errorf("empty list JSON = %s, want []", b)
		}
	})
}

func TestClosedStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		wantNoErr(t, "Close", f.svc.Close())
		_, err := f.svc.Orgs(t.Context())
		wantCodeMsg(t, "Orgs after Close", err, chat.CodeInternalServerError, "Internal server error")
		_, err = f.svc.CreateUser(t.Context(), chat.AsUser(f.admin.ID), "late@example.com", "late-password", "Late User")
		wantCodeMsg(t, "CreateUser after Close", err, chat.CodeInternalServerError, "Internal server error")
	})
}
