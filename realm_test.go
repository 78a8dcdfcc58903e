package chat_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// baseSettings is the server part of GET /server_settings with the default
// version.
func baseSettings(version string) chat.ServerSettings {
	return chat.ServerSettings{
		AuthenticationMethods:         chat.AuthenticationMethods{Password: true, Email: true},
		ExternalAuthenticationMethods: []chat.ExternalAuthenticationMethod{},
		ServiceFeatureLevel:           chat.FeatureLevel,
		ServiceVersion:                version,
		ServiceMergeBase:              version,
		ZulipFeatureLevel:             chat.FeatureLevel,
		ZulipVersion:                  version,
		ZulipMergeBase:                version,
		EmailAuthEnabled:              true,
		RequireEmailFormatUsernames:   true,
	}
}

func TestServerSettingsWithoutOrganization(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		got, err := svc.ServerSettings(t.Context(), "localhost:9991")
		wantNoErr(t, "ServerSettings", err)
		diff(t, "ServerSettings", got, baseSettings(chat.ServiceVersion))
		if chat.ServiceVersion != "0.1.0" {
			t.Errorf("ServiceVersion = %q", chat.ServiceVersion)
		}

		// The JSON form leaves the realm fields out.
		var m map[string]any
		b, err := json.Marshal(got)
		wantNoErr(t, "Marshal", err)
		wantNoErr(t, "Unmarshal", json.Unmarshal(b, &m))
		diff(t, "ServerSettings JSON", m, map[string]any{
			"authentication_methods": map[string]any{
				"password": true, "dev": false, "email": true, "ldap": false, "remoteuser": false,
				"code_host_a": false, "directory_idp": false, "code_host_b": false, "device_vendor_idp": false,
				"search_vendor_idp": false, "saml": false, "openid connect": false, "chat_vendor_idp": false,
			},
			"external_authentication_methods": []any{},
			"service_feature_level":           float64(chat.FeatureLevel),
			"service_version":                 "0.1.0",
			"service_merge_base":              "0.1.0",
			"zulip_feature_level":             float64(chat.FeatureLevel),
			"zulip_version":                   "0.1.0",
			"zulip_merge_base":                "0.1.0",
			"push_notifications_enabled":      false,
			"is_incompatible":                 false,
			"email_auth_enabled":              true,
			"require_email_format_usernames":  true,
		})
	})
}

func TestServerSettings(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{ServiceVersion: "9.9-test"})
		ctx := t.Context()
		_, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Test Org", Host: host1, OwnerEmail: "owner@example.com",
			OwnerName: "Olivia Owner", Description: "Welcome to <Test> & \"friends\".\n\n  Second paragraph\nwith a break.  \n\n\n"})
		wantNoErr(t, "CreateOrg", err)

		want := baseSettings("9.9-test")
		want.RealmURI = "http://localhost:9991"
		want.RealmURL = "http://localhost:9991"
		want.RealmName = "Test Org"
		want.RealmIcon = "https://secure.gravatar.com/avatar/82bf828208f549032b875ded9decfbea?d=identicon"
		// Markdown, as the reference renders it.
		want.RealmDescription = ptr("<p>Welcome to &lt;Test&gt; &amp; \"friends\".</p>\n<p>Second paragraph<br>\nwith a break.  </p>")
		want.RealmWebPublicAccessEnabled = ptr(false)
		// With one organization, every host reaches it.
		for _, host := range []string{host1, "localhost", "unknown.example.org"} {
			got, err := svc.ServerSettings(ctx, host)
			wantNoErr(t, "ServerSettings "+host, err)
			diff(t, "ServerSettings "+host, got, want)
		}

		_, err = svc.CreateOrg(ctx, chat.NewOrg{Name: "Other Org", Host: "Other.Example.com", URL: "https://other.example.com/",
			OwnerEmail: "owner2@example.com", OwnerName: "Otto Owner"})
		wantNoErr(t, "CreateOrg 2", err)
		got, err := svc.ServerSettings(ctx, host1)
		wantNoErr(t, "ServerSettings org 1", err)
		diff(t, "ServerSettings org 1", got, want)

		want2 := baseSettings("9.9-test")
		want2.RealmURI = "https://other.example.com"
		want2.RealmURL = "https://other.example.com"
		want2.RealmName = "Other Org"
		want2.RealmIcon = "https://secure.gravatar.com/avatar/98edbb45be925aefeaed52602b222cd4?d=identicon"
		want2.RealmDescription = ptr("")
		want2.RealmWebPublicAccessEnabled = ptr(false)
		for _, host := range []string{host2, "OTHER.example.COM", host2 + ":443"} {
			got, err := svc.ServerSettings(ctx, host)
			wantNoErr(t, "ServerSettings "+host, err)
			diff(t, "ServerSettings "+host, got, want2)
		}

		_, err = svc.ServerSettings(ctx, "unknown.example.org")
		wantErr(t, "unknown host", err, chat.ErrServerSettingsSubdomain)
		wantCodeMsg(t, "unknown host", err, chat.CodeBadRequest, "Invalid subdomain")

		// JSON form: realm fields present, description may be empty.
		b, err := json.Marshal(want2)
		wantNoErr(t, "Marshal", err)
		var m map[string]any
		wantNoErr(t, "Unmarshal", json.Unmarshal(b, &m))
		for k, v := range map[string]any{
			"realm_uri": "https://other.example.com", "realm_url": "https://other.example.com", "realm_name": "Other Org",
			"realm_description": "", "realm_web_public_access_enabled": false, "service_version": "9.9-test",
		} {
			if m[k] != v {
				t.Errorf("JSON %s = %#v, want %#v", k, m[k], v)
			}
		}
	})
}

func TestCreateOrg(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, clock := newService(t, newStore, chat.Config{})
		ctx := t.Context()
		res, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "  Test Org  ", Host: "Chat.Example.COM:8443", Description: "Hi",
			OwnerEmail: "Boss@Example.com", OwnerName: " Big Boss ", OwnerPassword: "boss-password"})
		wantNoErr(t, "CreateOrg", err)
		if res.RealmID == 0 || res.UserID == 0 || len(res.APIKey) != 32 {
			t.Errorf("CreateOrg = %+v", res)
		}
		diff(t, "CreateOrg result", res, chat.NewOrgResult{RealmID: res.RealmID, RealmURL: "http://chat.example.com:8443",
			UserID: res.UserID, Email: "Boss@Example.com", APIKey: res.APIKey})

		clock.Advance(time.Minute)
		res2, err := svc.CreateOrg(ctx, chat.NewOrg{Name: strings.Repeat("ü", 40), URL: "https://chat.example.net//",
			OwnerEmail: "boss@example.com", OwnerName: "Boss Two"})
		wantNoErr(t, "CreateOrg with a 40-character name and the default host", err)
		if res2.RealmURL != "https://chat.example.net" || res2.RealmID == res.RealmID {
			t.Errorf("CreateOrg 2 = %+v", res2)
		}

		orgs, err := svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		diff(t, "Orgs", orgs, []chat.Realm{
			{ID: res.RealmID, Name: "Test Org", Description: "Hi", Host: "chat.example.com:8443",
				URL: "http://chat.example.com:8443", DateCreated: t0, DefaultEmailVisibility: chat.EmailVisibleEveryone,
				RealmSettings: chat.DefaultRealmSettings()},
			{ID: res2.RealmID, Name: strings.Repeat("ü", 40), Host: "localhost", URL: "https://chat.example.net",
				DateCreated: t0.Add(time.Minute), DefaultEmailVisibility: chat.EmailVisibleEveryone,
				RealmSettings: chat.DefaultRealmSettings()},
		})

		// The owner is an owner who can log in.
		me, err := svc.Me(ctx, chat.AsUser(res.UserID))
		wantNoErr(t, "Me", err)
		owner := &account{ID: res.UserID, Email: "Boss@Example.com", Name: "Big Boss", Role: chat.RoleOwner, Vis: chat.EmailVisibleEveryone}
		diff(t, "owner", me, owner.want(true, "chat.example.com", chat.UserQuery{IncludeCustomProfileFields: true}))
		login, err := svc.FetchAPIKey(ctx, "chat.example.com:8443", "boss@example.com", "boss-password")
		wantNoErr(t, "FetchAPIKey", err)
		diff(t, "FetchAPIKey", login, chat.APIKeyResult{APIKey: res.APIKey, Email: "Boss@Example.com", UserID: res.UserID})
		// The second owner has no password.
		_, err = svc.FetchAPIKey(ctx, "localhost", "boss@example.com", "")
		wantErr(t, "owner without password", err, chat.ErrAuthenticationFailed)

		for _, c := range []struct {
			name string
			org  chat.NewOrg
			msg  string
			is   error
		}{
			{"blank name", chat.NewOrg{Name: " \t ", Host: "a.example.com", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"Organization name cannot be blank", nil},
			{"41-character name", chat.NewOrg{Name: strings.Repeat("ü", 41), Host: "a.example.com", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"Organization name is too long (limit: 40 characters)", nil},
			{"duplicate host", chat.NewOrg{Name: "Dup", Host: "chat.example.com:8443", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"An organization with host chat.example.com:8443 already exists", nil},
			{"duplicate host, other case", chat.NewOrg{Name: "Dup", Host: "CHAT.example.com:8443", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"An organization with host chat.example.com:8443 already exists", nil},
			{"duplicate default host", chat.NewOrg{Name: "Dup", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"An organization with host localhost already exists", nil},
			{"invalid host", chat.NewOrg{Name: "Bad", Host: "bad host!", OwnerEmail: "a@example.com", OwnerName: "Ann"},
				"Invalid host: bad host!", nil},
			{"invalid owner email", chat.NewOrg{Name: "Bad", Host: "b.example.com", OwnerEmail: "not-an-email", OwnerName: "Ann"},
				"", chat.ErrBadEmail},
			{"invalid owner name", chat.NewOrg{Name: "Bad", Host: "b.example.com", OwnerEmail: "a@example.com", OwnerName: "A"},
				"", chat.ErrNameTooShort},
			{"weak owner password", chat.NewOrg{Name: "Bad", Host: "b.example.com", OwnerEmail: "a@example.com", OwnerName: "Ann",
				OwnerPassword: "12345"}, "", chat.ErrPasswordTooWeak},
		} {
			_, err := svc.CreateOrg(ctx, c.org)
			if c.is != nil {
				wantErr(t, c.name, err, c.is)
			} else {
				wantCodeMsg(t, c.name, err, chat.CodeBadRequest, c.msg)
			}
		}
		orgs, err = svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		if len(orgs) != 2 {
			t.Errorf("%d organizations after failed creations, want 2: %+v", len(orgs), orgs)
		}
		// A failed creation did not hold on to its host.
		_, err = svc.CreateOrg(ctx, chat.NewOrg{Name: "Good", Host: "b.example.com", OwnerEmail: "a@example.com", OwnerName: "Ann"})
		wantNoErr(t, "CreateOrg after failures", err)
	})
}

func TestCreateOrgIsAtomic(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		ctx := t.Context()
		_, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "bad email", OwnerName: "Ann"})
		wantErr(t, "invalid owner email", err, chat.ErrBadEmail)
		orgs, err := svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		if len(orgs) != 0 {
			t.Errorf("organizations left behind: %+v", orgs)
		}
		// The host is free, and the next organization reaches it.
		res, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "ann@example.com", OwnerName: "Ann"})
		wantNoErr(t, "CreateOrg", err)
		orgs, err = svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		if len(orgs) != 1 || orgs[0].ID != res.RealmID {
			t.Errorf("Orgs = %+v, want only %d", orgs, res.RealmID)
		}
		users, err := svc.Users(ctx, chat.AsUser(res.UserID), chat.UserQuery{})
		wantNoErr(t, "Users", err)
		if len(users) != 1 || users[0].UserID != res.UserID {
			t.Errorf("Users = %+v", users)
		}
	})
}

// failingReader fails every read.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("entropy exhausted") }

func TestCreateOrgRandomnessFailure(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{Rand: failingReader{}})
		ctx := t.Context()
		_, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: "chat.example.com", OwnerEmail: "ann@example.com", OwnerName: "Ann"})
		wantCodeMsg(t, "CreateOrg without randomness", err, chat.CodeInternalServerError, "Internal server error")
		if err == nil || !strings.Contains(err.Error(), "entropy exhausted") {
			t.Errorf("cause not kept: %v", err)
		}
		orgs, err := svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		if len(orgs) != 0 {
			t.Errorf("organizations left behind: %+v", orgs)
		}
	})
}

func TestDeactivateOrg(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		wantCodeMsg(t, "unknown organization", f.svc.DeactivateOrg(ctx, 424242), chat.CodeBadRequest, "No such organization: 424242")
		wantNoErr(t, "DeactivateOrg", f.svc.DeactivateOrg(ctx, f.realm2))
		orgs, err := f.svc.Orgs(ctx)
		wantNoErr(t, "Orgs", err)
		if len(orgs) != 2 || orgs[0].Deactivated || !orgs[1].Deactivated {
			t.Errorf("Orgs = %+v", orgs)
		}
		// Deactivating twice is harmless.
		wantNoErr(t, "DeactivateOrg again", f.svc.DeactivateOrg(ctx, f.realm2))
		_, err = f.svc.Me(ctx, chat.AsUser(f.owner2.ID))
		wantErr(t, "Me in deactivated org", err, chat.ErrRealmDeactivated)
		_, err = f.svc.CreateUser(ctx, chat.AsUser(f.owner2.ID), "new@example.com", "new-password", "New User")
		wantErr(t, "CreateUser in deactivated org", err, chat.ErrRealmDeactivated)
		// The server settings still describe it.
		s, err := f.svc.ServerSettings(ctx, host2)
		wantNoErr(t, "ServerSettings", err)
		if s.RealmName != "Other Org" {
			t.Errorf("ServerSettings realm_name = %q", s.RealmName)
		}
	})
}

// TestCreateOrgHostValidation checks that every accepted host makes a
// parseable organization URL, and that the usual host forms are accepted.
func TestCreateOrgHostValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		svc, _ := newService(t, newStore, chat.Config{})
		ctx := t.Context()
		for i, host := range []string{"chat.example.com", "chat.example.com:8443", "localhost", "127.0.0.1:9991", "[::1]:9991", "[::1]"} {
			res, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: host,
				OwnerEmail: fmt.Sprintf("o%d@example.com", i), OwnerName: "Owner"})
			if err != nil {
				t.Errorf("CreateOrg(host %q): %v", host, err)
				continue
			}
			if _, err := url.Parse(res.RealmURL); err != nil {
				t.Errorf("CreateOrg(host %q) made an unparseable URL: %v", host, err)
			}
		}
		for _, host := range []string{"bad host!", "localhost:abc", "chat.example.com:port", "::1", "fe80::1", "a.example.com:99999x", "-bad.example.com"} {
			res, err := svc.CreateOrg(ctx, chat.NewOrg{Name: "Org", Host: host, OwnerEmail: "x@example.com", OwnerName: "Owner"})
			if err == nil {
				_, perr := url.Parse(res.RealmURL)
				t.Errorf("CreateOrg(host %q) accepted it, URL %q (url.Parse: %v)", host, res.RealmURL, perr)
				continue
			}
			wantCodeMsg(t, "host "+host, err, chat.CodeBadRequest, "Invalid host: "+host)
		}
	})
}
