package chat_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

func TestCreateUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		for _, a := range []*account{f.moderator, f.member, f.guest, f.bot} {
			_, err := f.svc.CreateUser(ctx, chat.AsUser(a.ID), "new@example.com", "new-password", "New User")
			wantErr(t, fmt.Sprintf("CreateUser by role %d", a.Role), err, chat.ErrMustBeAdmin)
		}
		// Not even a parameter error reaches a non-administrator.
		_, err := f.svc.CreateUser(ctx, chat.AsUser(f.member.ID), "bad", "", "")
		wantErr(t, "CreateUser by member, bad params", err, chat.ErrMustBeAdmin)

		long := strings.Repeat("é", 101)
		for _, c := range []struct {
			name, email, password, fullName string
			want                            error
		}{
			{"name too long", "a@example.com", "secret1", long, chat.ErrNameTooLong},
			{"name too long beats bad email", "bad", "", long, chat.ErrNameTooLong},
			{"name too short", "a@example.com", "secret1", "   x   ", chat.ErrNameTooShort},
			{"empty name", "a@example.com", "secret1", "", chat.ErrNameTooShort},
			{"asterisk", "a@example.com", "secret1", "Ann*", chat.ErrNameInvalidChars},
			{"backquote", "a@example.com", "secret1", "Ann`", chat.ErrNameInvalidChars},
			{"backslash", "a@example.com", "secret1", `Ann\`, chat.ErrNameInvalidChars},
			{"greater-than", "a@example.com", "secret1", "Ann>", chat.ErrNameInvalidChars},
			{"double quote", "a@example.com", "secret1", `Ann "A"`, chat.ErrNameInvalidChars},
			{"at sign", "a@example.com", "secret1", "Ann@home", chat.ErrNameInvalidChars},
			{"control character", "a@example.com", "secret1", "Ann\x07B", chat.ErrNameInvalidChars},
			{"invalid chars beat bad email", "bad", "", "Ann*", chat.ErrNameInvalidChars},
			{"mention format", "a@example.com", "secret1", "Name|123", chat.ErrNameInvalidFormat},
			{"mention format beats bad email", "bad", "", "Name|123", chat.ErrNameInvalidFormat},
			{"no at", "plain.example.com", "secret1", "Ann", chat.ErrBadEmail},
			{"empty email", "", "secret1", "Ann", chat.ErrBadEmail},
			{"no domain dot", "ann@example", "secret1", "Ann", chat.ErrBadEmail},
			{"numeric TLD", "ann@example.123", "secret1", "Ann", chat.ErrBadEmail},
			{"display name", "Ann <ann@example.com>", "secret1", "Ann", chat.ErrBadEmail},
			{"double at", "ann@@example.com", "secret1", "Ann", chat.ErrBadEmail},
			{"space inside", "an n@example.com", "secret1", "Ann", chat.ErrBadEmail},
			{"surrounding space", " ann@example.com", "secret1", "Ann", chat.ErrBadEmail},
			{"bad email beats weak password", "bad", "", "Ann", chat.ErrBadEmail},
			{"email in use", "everyone@example.com", "secret1", "Ann", chat.ErrEmailInUse},
			{"email in use, other case", "EVERYONE@EXAMPLE.com", "secret1", "Ann", chat.ErrEmailInUse},
			{"email of a bot in use", "helper-bot@example.com", "secret1", "Ann", chat.ErrEmailInUse},
			{"email in use beats weak password", "member@example.com", "", "Ann", chat.ErrEmailInUse},
			{"empty password", "ann@example.com", "", "Ann", chat.ErrPasswordTooWeak},
			{"five characters", "ann@example.com", "abcde", "Ann", chat.ErrPasswordTooWeak},
			{"five code points", "ann@example.com", "ééééé", "Ann", chat.ErrPasswordTooWeak},
		} {
			_, err := f.svc.CreateUser(ctx, chat.AsUser(f.admin.ID), c.email, c.password, c.fullName)
			wantErr(t, c.name, err, c.want)
		}
		// Nothing was created by the failures.
		users, err := f.svc.Users(ctx, chat.AsUser(f.owner.ID), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		if len(users) != len(f.all()) {
			t.Errorf("%d users after failed creations, want %d", len(users), len(f.all()))
		}

		// Successes: by an admin and by the owner; the name is trimmed,
		// 100 code points are fine, six characters are a strong enough
		// password, and the other organization's address is free here.
		f.clock.Advance(time.Hour)
		joined := t0.Add(time.Hour)
		name100 := strings.Repeat("é", 100)
		for _, c := range []struct {
			actor                 *account
			email, password, name string
			wantName              string
		}{
			{f.admin, "ann@example.com", "abcdef", "  Ann Able \t", "Ann Able"},
			{f.owner, "only2@example.com", "long-password", name100, name100},
			{f.admin, "pipe@example.com", "123456", "Name|12a", "Name|12a"},
		} {
			id, err := f.svc.CreateUser(ctx, chat.AsUser(c.actor.ID), c.email, c.password, c.name)
			wantNoErr(t, "CreateUser "+c.email, err)
			got, err := f.svc.User(ctx, chat.AsUser(c.actor.ID), id, chat.UserQuery{})
			wantNoErr(t, "User", err)
			want := (&account{ID: id, Email: c.email, Name: c.wantName, Role: chat.RoleMember,
				Vis: chat.EmailVisibleEveryone}).want(true, "localhost", chat.UserQuery{})
			want.DateJoined = joined
			diff(t, "created user", got, want)

			// The new user can log in with the password.
			res, err := f.svc.FetchAPIKey(ctx, host1, c.email, c.password)
			wantNoErr(t, "FetchAPIKey", err)
			if res.UserID != id || res.Email != c.email || len(res.APIKey) != 32 {
				t.Errorf("FetchAPIKey = %+v, want user %d", res, id)
			}
			uid, err := f.svc.Authenticate(ctx, host1, c.email, res.APIKey)
			wantNoErr(t, "Authenticate", err)
			if uid != id {
				t.Errorf("Authenticate = %d, want %d", uid, id)
			}
		}
		_, err = f.svc.CreateUser(ctx, chat.AsUser(f.admin.ID), "Ann@Example.com", "abcdef", "Ann Again")
		wantErr(t, "second Ann", err, chat.ErrEmailInUse)
	})
}

func TestConcurrentCreateUserSameEmail(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				email := "race@example.com"
				if i%2 == 1 {
					email = "RACE@example.com"
				}
				_, errs[i] = f.svc.CreateUser(t.Context(), chat.AsUser(f.admin.ID), email, "race-password", fmt.Sprintf("Racer %d", i))
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				wantErr(t, "concurrent CreateUser", err, chat.ErrEmailInUse)
			}
		}
		if ok != 1 {
			t.Errorf("%d concurrent creations succeeded, want 1", ok)
		}
	})
}

func TestDeactivateUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		d := func(actor, target *account) error { return f.svc.DeactivateUser(ctx, chat.AsUser(actor.ID), target.ID) }

		wantErr(t, "unknown", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), 999999), chat.ErrNoSuchUser)
		wantErr(t, "other organization", d(f.admin, f.only2), chat.ErrNoSuchUser)
		wantErr(t, "bot", d(f.admin, f.bot), chat.ErrNoSuchUser)
		wantErr(t, "bot, by non-admin (bot check first)", d(f.moderator, f.webhook), chat.ErrNoSuchUser)
		wantErr(t, "unknown, by non-admin", f.svc.DeactivateUser(ctx, chat.AsUser(f.guest.ID), 999999), chat.ErrNoSuchUser)
		wantErr(t, "moderator", d(f.moderator, f.visEveryone), chat.ErrInsufficientPermission)
		wantErr(t, "member", d(f.member, f.visEveryone), chat.ErrInsufficientPermission)
		wantErr(t, "guest", d(f.guest, f.visEveryone), chat.ErrInsufficientPermission)
		wantErr(t, "bot owner of nothing", d(f.bot, f.visEveryone), chat.ErrInsufficientPermission)
		wantErr(t, "admin on owner", d(f.admin, f.owner), chat.ErrMustBeOwner)
		wantErr(t, "only owner on self", d(f.owner, f.owner), chat.ErrCannotDeactivateOwner)

		wantNoErr(t, "admin deactivates everyone-user", d(f.admin, f.visEveryone))
		wantErr(t, "already deactivated", d(f.admin, f.visEveryone), chat.ErrUserDeactivated)
		wantErr(t, "already deactivated, by non-admin (state check first)", d(f.member, f.visEveryone), chat.ErrUserDeactivated)

		// A bot that is an owner does not count as a second owner.
		_, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "owner-bot@example.com", FullName: "Owner Bot",
			Role: chat.RoleOwner, BotType: chat.BotGeneric, BotOwnerID: f.owner.ID})
		wantNoErr(t, "ProvisionUser(owner bot)", err)
		wantErr(t, "only human owner on self", d(f.owner, f.owner), chat.ErrCannotDeactivateOwner)

		// With two human owners, either can go.
		res, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "owner-b@example.com", FullName: "Bea Owner",
			Role: chat.RoleOwner, Password: "owner-b-password"})
		wantNoErr(t, "ProvisionUser(second owner)", err)
		ownerB := &account{ID: res.UserID}
		wantErr(t, "admin on second owner", d(f.admin, ownerB), chat.ErrMustBeOwner)
		wantNoErr(t, "owner deactivates second owner", d(f.owner, ownerB))
		wantErr(t, "only owner again", d(f.owner, f.owner), chat.ErrCannotDeactivateOwner)
		wantNoErr(t, "admin reactivates second owner", f.svc.ReactivateUser(ctx, chat.AsUser(f.admin.ID), ownerB.ID))
		wantNoErr(t, "owner deactivates self", d(f.owner, f.owner))
		wantErr(t, "deactivated owner acts", d(f.owner, f.member), chat.ErrAccountDeactivated)
		// Bots of the deactivated owner went with them.
		ob, err := f.svc.UserByEmail(ctx, chat.AsUser(f.admin.ID), "owner-bot@example.com", chat.UserQuery{})
		wantNoErr(t, "UserByEmail(owner bot)", err)
		if ob.IsActive {
			t.Error("owner's bot still active after the owner was deactivated")
		}
		wantErr(t, "remaining owner on self", d(ownerB, ownerB), chat.ErrCannotDeactivateOwner)

		// Deactivating a member deactivates their bots, and only theirs.
		wantNoErr(t, "deactivate member", d(f.admin, f.member))
		for _, c := range []struct {
			a      *account
			active bool
		}{{f.member, false}, {f.bot, false}, {f.webhook, true}, {f.guest, true}} {
			u, err := f.svc.User(ctx, chat.AsUser(f.admin.ID), c.a.ID, chat.UserQuery{})
			wantNoErr(t, "User", err)
			if u.IsActive != c.active {
				t.Errorf("%s is_active = %v, want %v", c.a.Email, u.IsActive, c.active)
			}
		}
		// Their credentials stop working.
		_, err = f.svc.Authenticate(ctx, host1, f.member.Email, f.member.APIKey)
		wantErr(t, "Authenticate(deactivated member)", err, chat.ErrAccountDeactivated)
		_, err = f.svc.Authenticate(ctx, host1, f.bot.Email, f.bot.APIKey)
		wantErr(t, "Authenticate(deactivated bot)", err, chat.ErrAccountDeactivated)
		_, err = f.svc.Authenticate(ctx, host1, f.webhook.Email, f.webhook.APIKey)
		wantErr(t, "Authenticate(other bot)", err, chat.ErrWebhookBotNotAllowed)
		_, err = f.svc.FetchAPIKey(ctx, host1, f.member.Email, f.member.Password)
		wantErr(t, "FetchAPIKey(deactivated member)", err, chat.ErrLoginUserDeactivated)

		// The other organization's users were untouched.
		u, err := f.svc.User(ctx, chat.AsUser(f.owner2.ID), f.member2.ID, chat.UserQuery{})
		wantNoErr(t, "User(org 2)", err)
		if !u.IsActive {
			t.Error("same-address user of the other organization was deactivated")
		}
	})
}

func TestReactivateUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		r := func(actor, target *account) error { return f.svc.ReactivateUser(ctx, chat.AsUser(actor.ID), target.ID) }
		active := func(a *account) bool {
			t.Helper()
			u, err := f.svc.User(ctx, chat.AsUser(f.owner.ID), a.ID, chat.UserQuery{})
			wantNoErr(t, "User", err)
			return u.IsActive
		}

		wantErr(t, "unknown", f.svc.ReactivateUser(ctx, chat.AsUser(f.admin.ID), 999999), chat.ErrNoSuchUser)
		wantErr(t, "other organization", r(f.admin, f.only2), chat.ErrNoSuchUser)
		wantNoErr(t, "already active, by admin", r(f.admin, f.visEveryone))
		wantNoErr(t, "already active bot, by its owner", r(f.member, f.bot))
		wantErr(t, "active user, by member", r(f.member, f.visEveryone), chat.ErrInsufficientPermission)
		wantErr(t, "someone else's bot, by member", r(f.member, f.webhook), chat.ErrInsufficientPermission)
		wantErr(t, "active user, by moderator", r(f.moderator, f.visEveryone), chat.ErrInsufficientPermission)

		// The member and with them their bot are deactivated.
		wantNoErr(t, "deactivate member", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.member.ID))
		wantNoErr(t, "deactivate guest", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.guest.ID))
		if active(f.member) || active(f.bot) {
			t.Fatal("member or their bot still active")
		}
		wantErr(t, "deactivated user acts", r(f.member, f.bot), chat.ErrAccountDeactivated)
		wantErr(t, "moderator on deactivated", r(f.moderator, f.member), chat.ErrInsufficientPermission)
		wantErr(t, "member on someone else", r(f.visEveryone, f.guest), chat.ErrInsufficientPermission)
		wantErr(t, "member on someone else's bot", r(f.visEveryone, f.bot), chat.ErrInsufficientPermission)
		wantNoErr(t, "admin reactivates member", r(f.admin, f.member))
		if !active(f.member) {
			t.Error("member not reactivated")
		}
		if active(f.bot) {
			t.Error("reactivating the owner reactivated the bot too")
		}
		wantNoErr(t, "owner of the bot reactivates it", r(f.member, f.bot))
		if !active(f.bot) {
			t.Error("bot not reactivated")
		}
		wantNoErr(t, "owner reactivates guest", r(f.owner, f.guest))
		if !active(f.guest) {
			t.Error("guest not reactivated")
		}
		// Credentials work again.
		id, err := f.svc.Authenticate(ctx, host1, f.bot.Email, f.bot.APIKey)
		wantNoErr(t, "Authenticate(bot)", err)
		if id != f.bot.ID {
			t.Errorf("Authenticate(bot) = %d, want %d", id, f.bot.ID)
		}
		_, err = f.svc.FetchAPIKey(ctx, host1, f.guest.Email, f.guest.Password)
		wantNoErr(t, "FetchAPIKey(guest)", err)
	})
}

func TestProvisionUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		_, err := f.svc.ProvisionUser(ctx, 424242, chat.NewUser{Email: "x@example.com", FullName: "X Y"})
		wantCodeMsg(t, "unknown organization", err, chat.CodeBadRequest, "No such organization: 424242")
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "x@example.com", FullName: "X Y", Password: "short"})
		wantErr(t, "short password", err, chat.ErrPasswordTooWeak)
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "x@example.com", FullName: "X Y", Timezone: "Mars/Olympus"})
		wantCodeMsg(t, "bad timezone", err, chat.CodeBadRequest, "Invalid timezone")
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "x@example.com", FullName: "X Y", Role: 500})
		wantCodeMsg(t, "bad role", err, chat.CodeBadRequest, "Invalid role: Value error, Not in the list of possible values")
		_, err = f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "x@example.com", FullName: "X Y", BotType: chat.BotGeneric,
			BotOwnerID: f.only2.ID})
		wantErr(t, "bot owner in another organization", err, chat.ErrNoSuchUser)
		_, err = f.svc.ProvisionUser(ctx, f.realm2, chat.NewUser{Email: "Member@example.com", FullName: "Dup"})
		wantErr(t, "address in use in the same organization", err, chat.ErrEmailInUse)
		// No password is fine for provisioned accounts; they cannot log in.
		res, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: "nopass@example.com", FullName: "No Pass"})
		wantNoErr(t, "ProvisionUser without password", err)
		if res.Email != "nopass@example.com" || len(res.APIKey) != 32 || res.UserID == 0 {
			t.Errorf("ProvisionUser = %+v", res)
		}
		_, err = f.svc.FetchAPIKey(ctx, host1, "nopass@example.com", "")
		wantErr(t, "login without password", err, chat.ErrAuthenticationFailed)
	})
}

func TestAPIKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		seen := map[string]int64{}
		for _, a := range append(f.all(), f.owner2, f.member2, f.only2) {
			if len(a.APIKey) != 32 {
				t.Errorf("%s: key %q has %d characters", a.Email, a.APIKey, len(a.APIKey))
			}
			for _, c := range a.APIKey {
				if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
					t.Errorf("%s: key %q has character %q", a.Email, a.APIKey, c)
				}
			}
			if other, ok := seen[a.APIKey]; ok {
				t.Errorf("users %d and %d share key %q", other, a.ID, a.APIKey)
			}
			seen[a.APIKey] = a.ID
		}
		// The key reported at creation is the one that logs in.
		res, err := f.svc.FetchAPIKey(t.Context(), host1, f.admin.Email, f.admin.Password)
		wantNoErr(t, "FetchAPIKey", err)
		if res.APIKey != f.admin.APIKey {
			t.Errorf("FetchAPIKey key %q, ProvisionUser said %q", res.APIKey, f.admin.APIKey)
		}
	})
}

func TestNonASCIIEmailCase(t *testing.T) {
	// Addresses are compared under Unicode case folding (chat.EmailKey),
	// the same on every backend.
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		id, err := f.svc.CreateUser(ctx, chat.AsUser(f.admin.ID), "Änne@example.com", "änne-password", "Änne Ö")
		wantNoErr(t, "CreateUser", err)
		_, err = f.svc.CreateUser(ctx, chat.AsUser(f.admin.ID), "äNNE@EXAMPLE.com", "other-password", "Other Änne")
		wantErr(t, "same address, other case", err, chat.ErrEmailInUse)
		u, err := f.svc.UserByEmail(ctx, chat.AsUser(f.guest.ID), "ÄNNE@example.com", chat.UserQuery{})
		wantNoErr(t, "UserByEmail", err)
		want := (&account{ID: id, Email: "Änne@example.com", Name: "Änne Ö", Role: chat.RoleMember,
			Vis: chat.EmailVisibleEveryone}).want(true, "localhost", chat.UserQuery{})
		diff(t, "UserByEmail", u, want)
		if *u.AvatarURL != gravatar("änne@example.com") {
			t.Errorf("avatar_url %s not from the lower-cased address", *u.AvatarURL)
		}
		res, err := f.svc.FetchAPIKey(ctx, host1, "änne@example.com", "änne-password")
		wantNoErr(t, "FetchAPIKey", err)
		got, err := f.svc.Authenticate(ctx, host1, "ÄNNE@EXAMPLE.COM", res.APIKey)
		if err != nil || got != id {
			t.Errorf("Authenticate = %d, %v; want %d", got, err, id)
		}
	})
}

func TestConcurrentOwnerDeactivation(t *testing.T) {
	// Two owners deactivating each other at once: updates are serialised,
	// so one of them always remains.
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		ctx := t.Context()
		for round := range 5 {
			org, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: fmt.Sprintf("org%d.example.com", round),
				OwnerEmail: "a@example.com", OwnerName: "Owner A"})
			wantNoErr(t, "CreateOrg", err)
			b, err := svc.ProvisionUser(ctx, org.RealmID, chat.NewUser{Email: "b@example.com", FullName: "Owner B", Role: chat.RoleOwner})
			wantNoErr(t, "ProvisionUser", err)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			pairs := [][2]int64{{org.UserID, b.UserID}, {b.UserID, org.UserID}}
			for i, p := range pairs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = svc.DeactivateUser(ctx, chat.AsUser(p[0]), p[1])
				}()
			}
			wg.Wait()
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, chat.ErrAccountDeactivated), errors.Is(err, chat.ErrCannotDeactivateOwner):
				default:
					t.Errorf("round %d: unexpected error %v", round, err)
				}
			}
			if ok != 1 {
				t.Errorf("round %d: %d deactivations succeeded (%v), want 1", round, ok, errs)
			}
		}
	})
}

func TestProvisionUserOptions(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		bad := func(u chat.NewUser) error {
			u.Email, u.FullName = "opt@example.com", "Opt User"
			_, err := f.svc.ProvisionUser(ctx, f.realm, u)
			return err
		}
		wantCodeMsg(t, "visibility 6", bad(chat.NewUser{EmailVisibility: 6}), chat.CodeBadRequest, "Invalid email_address_visibility")
		wantCodeMsg(t, "visibility -1", bad(chat.NewUser{EmailVisibility: -1}), chat.CodeBadRequest, "Invalid email_address_visibility")
		wantCodeMsg(t, "bot type 5", bad(chat.NewUser{BotType: 5}), chat.CodeBadRequest, "Invalid bot type")
		wantCodeMsg(t, "time zone Local", bad(chat.NewUser{Timezone: "Local"}), chat.CodeBadRequest, "Invalid timezone")
		wantCodeMsg(t, "role 0 is member, role 1 is not", bad(chat.NewUser{Role: 1}), chat.CodeBadRequest,
			"Invalid role: Value error, Not in the list of possible values")
		wantErr(t, "unknown bot owner", bad(chat.NewUser{BotType: chat.BotGeneric, BotOwnerID: 999999}), chat.ErrNoSuchUser)

		// Every bot type and role round-trips.
		for i, c := range []struct {
			role chat.Role
			typ  chat.BotType
			tz   string
		}{
			{chat.RoleOwner, chat.BotNone, "UTC"},
			{chat.RoleModerator, chat.BotOutgoingWebhook, "Asia/Kolkata"},
			{chat.RoleGuest, chat.BotEmbedded, "America/Argentina/Buenos_Aires"},
			{chat.RoleAdmin, chat.BotIncomingWebhook, ""},
		} {
			a := &account{Email: fmt.Sprintf("kind%d@example.com", i), Name: fmt.Sprintf("Kind %d", i), Role: c.role,
				BotType: c.typ, Timezone: c.tz, Vis: chat.EmailVisibleEveryone}
			if c.typ != chat.BotNone {
				a.BotOwner = f.admin.ID
			}
			res, err := f.svc.ProvisionUser(ctx, f.realm, chat.NewUser{Email: a.Email, FullName: a.Name, Role: a.Role,
				BotType: a.BotType, BotOwnerID: a.BotOwner, Timezone: a.Timezone})
			wantNoErr(t, "ProvisionUser", err)
			a.ID = res.UserID
			got, err := f.svc.User(ctx, chat.AsUser(f.member.ID), a.ID, chat.UserQuery{})
			wantNoErr(t, "User", err)
			diff(t, a.Email, got, a.want(true, "localhost", chat.UserQuery{}))
		}
	})
}
