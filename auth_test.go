package chat_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

func TestAuthenticate(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		auth := func(host, email, key string) (int64, error) { return f.svc.Authenticate(ctx, host, email, key) }

		// Successes, with case and white-space variants.
		for _, c := range []struct {
			name, host, email, key string
			want                   int64
		}{
			{"owner", host1, f.owner.Email, f.owner.APIKey, f.owner.ID},
			{"guest", host1, f.guest.Email, f.guest.APIKey, f.guest.ID},
			{"generic bot", host1, f.bot.Email, f.bot.APIKey, f.bot.ID},
			{"stored mixed case, lower case given", host1, "member@example.com", f.member.APIKey, f.member.ID},
			{"upper case", host1, "MEMBER@EXAMPLE.COM", f.member.APIKey, f.member.ID},
			{"white space", host1, " \t" + f.admin.Email + "\n", "  " + f.admin.APIKey + " \r\n", f.admin.ID},
			{"hidden address: the real one authenticates", host1, f.visNobody.Email, f.visNobody.APIKey, f.visNobody.ID},
			{"host by name without port", "localhost", f.admin.Email, f.admin.APIKey, f.admin.ID},
			{"host in upper case", "LOCALHOST:9991", f.admin.Email, f.admin.APIKey, f.admin.ID},
			{"second organization", host2, f.only2.Email, f.only2.APIKey, f.only2.ID},
			{"second organization, same address as a first-org user", host2, "Member@example.com", f.member2.APIKey, f.member2.ID},
			{"second organization, host with port", host2 + ":443", f.owner2.Email, f.owner2.APIKey, f.owner2.ID},
		} {
			id, err := auth(c.host, c.email, c.key)
			if err != nil || id != c.want {
				t.Errorf("%s: Authenticate = %d, %v; want %d", c.name, id, err, c.want)
			}
		}

		// Failures.
		for _, c := range []struct {
			name, host, email, key string
			want                   error
		}{
			{"empty key", host1, f.admin.Email, "", chat.ErrMalformedAPIKey},
			{"31 characters", host1, f.admin.Email, f.admin.APIKey[:31], chat.ErrMalformedAPIKey},
			{"33 characters", host1, f.admin.Email, f.admin.APIKey + "a", chat.ErrMalformedAPIKey},
			{"hyphen", host1, f.admin.Email, f.admin.APIKey[:31] + "-", chat.ErrMalformedAPIKey},
			{"underscore", host1, f.admin.Email, "_" + f.admin.APIKey[1:], chat.ErrMalformedAPIKey},
			{"inner space", host1, f.admin.Email, f.admin.APIKey[:16] + " " + f.admin.APIKey[17:], chat.ErrMalformedAPIKey},
			{"32 bytes with a non-ASCII letter", host1, f.admin.Email, f.admin.APIKey[:30] + "é", chat.ErrMalformedAPIKey},
			{"malformed key at an unknown host", "nowhere.example.net", f.admin.Email, "short", chat.ErrMalformedAPIKey},
			{"unknown key", host1, f.admin.Email, strings.Repeat("A", 32), chat.ErrInvalidAPIKey},
			{"another user's key", host1, f.admin.Email, f.member.APIKey, chat.ErrInvalidAPIKey},
			{"key with the placeholder address", host1, placeholder(f.visNobody.ID, "localhost"), f.visNobody.APIKey, chat.ErrInvalidAPIKey},
			{"unknown address", host1, "stranger@example.com", f.admin.APIKey, chat.ErrInvalidAPIKey},
			{"key of another org's user with a different address", host1, f.admin.Email, f.only2.APIKey, chat.ErrInvalidAPIKey},
			{"wrong subdomain", host1, f.only2.Email, f.only2.APIKey, chat.ErrWrongSubdomain},
			{"wrong subdomain, address also used here", host1, f.member2.Email, f.member2.APIKey, chat.ErrWrongSubdomain},
			{"wrong subdomain, other case", host1, "MEMBER@example.com", f.member2.APIKey, chat.ErrWrongSubdomain},
			{"wrong subdomain, reversed", host2, f.owner.Email, f.owner.APIKey, chat.ErrWrongSubdomain},
			{"unknown host", "nowhere.example.net", f.owner.Email, f.owner.APIKey, chat.ErrWrongSubdomain},
			{"unknown host, unknown key", "nowhere.example.net", f.owner.Email, strings.Repeat("z", 32), chat.ErrInvalidAPIKey},
			{"incoming webhook bot", host1, f.webhook.Email, f.webhook.APIKey, chat.ErrWebhookBotNotAllowed},
		} {
			id, err := auth(c.host, c.email, c.key)
			wantErr(t, c.name, err, c.want)
			if id != 0 {
				t.Errorf("%s: id %d returned with an error", c.name, id)
			}
		}

		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.guest.ID))
		_, err := auth(host1, f.guest.Email, f.guest.APIKey)
		wantErr(t, "deactivated user", err, chat.ErrAccountDeactivated)
		_, err = auth(host1, f.owner.Email, f.owner.APIKey)
		wantNoErr(t, "owner still active", err)

		wantNoErr(t, "DeactivateOrg", f.svc.DeactivateOrg(ctx, f.realm))
		_, err = auth(host1, f.owner.Email, f.owner.APIKey)
		wantErr(t, "deactivated organization", err, chat.ErrRealmDeactivated)
		_, err = auth(host1, f.bot.Email, f.bot.APIKey)
		wantErr(t, "deactivated organization, bot", err, chat.ErrRealmDeactivated)
		// The organization is checked before the account and the bot type.
		_, err = auth(host1, f.guest.Email, f.guest.APIKey)
		wantErr(t, "deactivated organization, deactivated user", err, chat.ErrRealmDeactivated)
		_, err = auth(host1, f.webhook.Email, f.webhook.APIKey)
		wantErr(t, "deactivated organization, webhook bot", err, chat.ErrRealmDeactivated)
		// Key checks still come first.
		_, err = auth(host1, f.owner.Email, f.admin.APIKey)
		wantErr(t, "deactivated organization, wrong key", err, chat.ErrInvalidAPIKey)
		_, err = auth(host1, f.owner.Email, "bad")
		wantErr(t, "deactivated organization, malformed key", err, chat.ErrMalformedAPIKey)
		id, err := auth(host2, f.only2.Email, f.only2.APIKey)
		if err != nil || id != f.only2.ID {
			t.Errorf("other organization after deactivation: %d, %v", id, err)
		}
	})
}

func TestAuthenticateSingleOrganization(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Solo", Host: "chat.example.com",
			OwnerEmail: "solo@example.com", OwnerName: "Solo Owner"})
		wantNoErr(t, "CreateOrg", err)
		for _, host := range []string{"chat.example.com", "elsewhere.example.org:8080", "127.0.0.1:9991", ""} {
			id, err := svc.Authenticate(t.Context(), host, "solo@example.com", org.APIKey)
			if err != nil || id != org.UserID {
				t.Errorf("Authenticate at %q = %d, %v; want %d", host, id, err, org.UserID)
			}
		}
	})
}

func TestFetchAPIKey(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		login := func(host, user, pass string) (chat.APIKeyResult, error) {
			return f.svc.FetchAPIKey(ctx, host, user, pass)
		}
		joined := func(a *account) (time.Time, bool) {
			t.Helper()
			u, err := f.svc.User(ctx, chat.AsUser(f.owner.ID), a.ID, chat.UserQuery{})
			wantNoErr(t, "User", err)
			return u.DateJoined, u.IsImportedStub
		}

		// First login moves date_joined to the login time.
		if d, _ := joined(f.member); !d.Equal(t0) {
			t.Fatalf("date_joined before login = %v, want %v", d, t0)
		}
		t1 := f.clock.Advance(36*time.Hour + 17*time.Minute + 3*time.Second + 5)
		res, err := login(host1, "member@EXAMPLE.com", f.member.Password)
		wantNoErr(t, "first login", err)
		diff(t, "first login", res, chat.APIKeyResult{APIKey: f.member.APIKey, Email: "Member@Example.com", UserID: f.member.ID})
		d, stub := joined(f.member)
		if !d.Equal(t1) || stub {
			t.Errorf("after first login date_joined = %v, stub %v; want %v, false", d, stub, t1)
		}
		u, err := f.svc.User(ctx, chat.AsUser(f.guest.ID), f.member.ID, chat.UserQuery{})
		wantNoErr(t, "User", err)
		b, err := u.MarshalJSON()
		wantNoErr(t, "MarshalJSON", err)
		if !strings.Contains(string(b), `"date_joined":"2025-04-01T00:51+00:00"`) {
			t.Errorf("date_joined after first login in %s", b)
		}

		// The second login leaves it alone.
		f.clock.Advance(24 * time.Hour)
		_, err = login(host1, f.member.Email, f.member.Password)
		wantNoErr(t, "second login", err)
		if d, _ := joined(f.member); !d.Equal(t1) {
			t.Errorf("after second login date_joined = %v, want %v", d, t1)
		}
		// Other users are unaffected.
		if d, _ := joined(f.admin); !d.Equal(t0) {
			t.Errorf("admin date_joined = %v, want %v", d, t0)
		}

		for _, c := range []struct {
			name, host, user, pass string
			want                   error
		}{
			{"wrong password", host1, f.admin.Email, "wrong-password", chat.ErrAuthenticationFailed},
			{"password of another user", host1, f.admin.Email, f.moderator.Password, chat.ErrAuthenticationFailed},
			{"empty password", host1, f.admin.Email, "", chat.ErrAuthenticationFailed},
			{"password case", host1, f.admin.Email, strings.ToUpper(f.admin.Password), chat.ErrAuthenticationFailed},
			{"unknown user", host1, "stranger@example.com", "whatever-password", chat.ErrAuthenticationFailed},
			{"user without password", host1, f.visEveryone.Email, "", chat.ErrAuthenticationFailed},
			{"bot", host1, f.bot.Email, "", chat.ErrAuthenticationFailed},
			{"user of the other organization", host1, f.only2.Email, f.only2.Password, chat.ErrAuthenticationFailed},
			{"other organization's password for the same address", host1, f.member2.Email, f.member2.Password, chat.ErrAuthenticationFailed},
			{"placeholder address", host1, placeholder(f.visNobody.ID, "localhost"), f.visNobody.Password, chat.ErrAuthenticationFailed},
			{"not an email", host1, "not-an-email", f.admin.Password, chat.ErrEnterValidEmail},
			{"empty username", host1, "", f.admin.Password, chat.ErrEnterValidEmail},
			{"unknown host", "nowhere.example.net", f.admin.Email, f.admin.Password, chat.ErrInvalidSubdomain},
			{"unknown host beats a bad address", "nowhere.example.net", "not-an-email", "", chat.ErrInvalidSubdomain},
		} {
			res, err := login(c.host, c.user, c.pass)
			wantErr(t, c.name, err, c.want)
			if res != (chat.APIKeyResult{}) {
				t.Errorf("%s: result %+v returned with an error", c.name, res)
			}
		}

		// The second organization logs in through its host.
		res, err = login(host2, f.member2.Email, f.member2.Password)
		wantNoErr(t, "org 2 login", err)
		diff(t, "org 2 login", res, chat.APIKeyResult{APIKey: f.member2.APIKey, Email: "member@example.com", UserID: f.member2.ID})

		// A deactivated user learns it only with the right password.
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.admin.ID), f.guest.ID))
		_, err = login(host1, f.guest.Email, f.guest.Password)
		wantErr(t, "deactivated user", err, chat.ErrLoginUserDeactivated)
		// Login errors carry their own codes, unlike the API-key ones.
		wantCodeMsg(t, "deactivated user", err, chat.CodeUserDeactivated, "Account is deactivated")
		if errors.Is(err, chat.ErrAccountDeactivated) {
			t.Error("login error matches the API-key sentinel ErrAccountDeactivated")
		}
		_, err = login(host1, f.guest.Email, "wrong-password")
		wantErr(t, "deactivated user, wrong password", err, chat.ErrAuthenticationFailed)

		wantNoErr(t, "DeactivateOrg", f.svc.DeactivateOrg(ctx, f.realm))
		_, err = login(host1, f.admin.Email, f.admin.Password)
		wantErr(t, "deactivated organization", err, chat.ErrLoginRealmDeactivated)
		wantCodeMsg(t, "deactivated organization", err, chat.CodeRealmDeactivated, "This organization has been deactivated")
		if errors.Is(err, chat.ErrRealmDeactivated) {
			t.Error("login error matches the API-key sentinel ErrRealmDeactivated")
		}
		_, err = login(host1, f.admin.Email, "wrong-password")
		wantErr(t, "deactivated organization, wrong password", err, chat.ErrAuthenticationFailed)
		_, err = login(host2, f.only2.Email, f.only2.Password)
		wantNoErr(t, "other organization still logs in", err)
	})
}

func TestFetchAPIKeyOfCreatedUser(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		created := f.clock.Advance(time.Minute)
		id, err := f.svc.CreateUser(ctx, chat.AsUser(f.admin.ID), "fresh@example.com", "fresh-password", "Fresh User")
		wantNoErr(t, "CreateUser", err)
		u, err := f.svc.User(ctx, chat.AsUser(id), id, chat.UserQuery{})
		wantNoErr(t, "User", err)
		if !u.DateJoined.Equal(created) || u.IsImportedStub {
			t.Errorf("before login: date_joined %v stub %v, want %v false", u.DateJoined, u.IsImportedStub, created)
		}
		// Using the API key is not a login.
		f.clock.Advance(time.Hour)
		res, err := f.svc.FetchAPIKey(ctx, host1, "fresh@example.com", "fresh-password")
		wantNoErr(t, "FetchAPIKey", err)
		_, err = f.svc.Authenticate(ctx, host1, "fresh@example.com", res.APIKey)
		wantNoErr(t, "Authenticate", err)
		loggedIn := f.clock.Now()
		f.clock.Advance(time.Hour)
		_, err = f.svc.Authenticate(ctx, host1, "fresh@example.com", res.APIKey)
		wantNoErr(t, "Authenticate", err)
		u, err = f.svc.Me(ctx, chat.AsUser(id))
		wantNoErr(t, "Me", err)
		if !u.DateJoined.Equal(loggedIn) {
			t.Errorf("after login: date_joined %v, want %v", u.DateJoined, loggedIn)
		}
	})
}

func TestFetchAPIKeySingleOrganization(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		org, err := svc.CreateOrg(t.Context(), chat.NewOrg{Name: "Solo", Host: "chat.example.com",
			OwnerEmail: "solo@example.com", OwnerName: "Solo Owner", OwnerPassword: "solo-password"})
		wantNoErr(t, "CreateOrg", err)
		for _, host := range []string{"chat.example.com", "anything.example.org:1234"} {
			res, err := svc.FetchAPIKey(t.Context(), host, "solo@example.com", "solo-password")
			wantNoErr(t, "FetchAPIKey at "+host, err)
			diff(t, "FetchAPIKey at "+host, res, chat.APIKeyResult{APIKey: org.APIKey, Email: "solo@example.com", UserID: org.UserID})
		}
	})
}

func TestFetchAPIKeyNoOrganization(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		_, err := svc.FetchAPIKey(t.Context(), "localhost", "a@example.com", "password")
		wantErr(t, "no organization", err, chat.ErrInvalidSubdomain)
		_, err = svc.Authenticate(t.Context(), "localhost", "a@example.com", strings.Repeat("a", 32))
		wantErr(t, "no organization", err, chat.ErrInvalidAPIKey)
	})
}

func TestErrorValues(t *testing.T) {
	cause := errors.New("disk on fire")
	e := &chat.Error{Code: chat.CodeBadRequest, Msg: "No such user", Data: map[string]any{"x": 1}, Err: cause}
	if !errors.Is(e, chat.ErrNoSuchUser) {
		t.Error("an *Error with the sentinel's code and message does not match it")
	}
	if !errors.Is(e, cause) {
		t.Error("the cause is not reachable through Unwrap")
	}
	if errors.Is(e, chat.ErrUserDeactivated) {
		t.Error("different message matched")
	}
	if errors.Is(&chat.Error{Code: chat.CodeUnauthorized, Msg: "No such user"}, chat.ErrNoSuchUser) {
		t.Error("different code matched")
	}
	if got := e.Error(); got != "BAD_REQUEST: No such user: disk on fire" {
		t.Errorf("Error() = %q", got)
	}
	if got := chat.ErrNoSuchUser.Error(); got != "BAD_REQUEST: No such user" {
		t.Errorf("Error() = %q", got)
	}
	m := chat.MissingArgument("full_name")
	diff(t, "MissingArgument", *m, chat.Error{Code: chat.CodeRequestVariableMissing, Msg: "Missing 'full_name' argument",
		Data: map[string]any{"var_name": "full_name"}})
}
