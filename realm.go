package chat

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"html"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// ErrServerSettingsSubdomain answers GET /server_settings at a host that
// reaches no organization on a server that hosts several.
var ErrServerSettingsSubdomain = &Error{Code: CodeBadRequest, Msg: "Invalid subdomain"}

// realmForHost finds the organization that a request to host reaches: the
// only one when the server hosts one, otherwise the one whose Host equals
// host (or, failing that, whose host name without port does).
func (s *Service) realmForHost(tx storage.Tx, host string) (Realm, error) {
	r, err := tx.RealmByHost(strings.ToLower(host))
	if err == nil || !errors.Is(err, storage.ErrNotFound) {
		return r, err
	}
	realms, err := tx.Realms()
	if err != nil {
		return Realm{}, err
	}
	if len(realms) == 1 {
		return realms[0], nil
	}
	name := hostName(host)
	for _, r := range realms {
		if hostName(r.Host) == name {
			return r, nil
		}
	}
	return Realm{}, ErrInvalidSubdomain
}

// hostName strips the port (and an IPv6 address's brackets) from host.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// validHost reports whether host is a domain name or IP address, with an
// optional port, that makes a valid URL.
func validHost(host string) bool {
	u, err := url.Parse("http://" + host)
	if err != nil || u.Host != host || u.User != nil {
		return false
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return false
		}
	}
	name := u.Hostname()
	return validDomain(name) || net.ParseIP(name) != nil
}

// emailDomain is the domain of the realm's placeholder addresses: its host
// name when that is a valid email domain, otherwise Config.FakeEmailDomain.
func (s *Service) emailDomain(r Realm) string {
	if d := hostName(r.Host); validDomain(d) {
		return d
	}
	return s.cfg.FakeEmailDomain
}

// NewOrg describes an organization to create, with its first owner.
type NewOrg struct {
	Name string
	// Host through which clients reach the organization; "localhost" when
	// empty.
	Host string
	// URL is the canonical URL; "http://" + Host when empty.
	URL         string
	Description string
	OwnerEmail  string
	OwnerName   string
	// OwnerPassword, when not empty, lets the owner log in with it.
	OwnerPassword string
}

// NewOrgResult describes a created organization and its owner. Its JSON form
// is what `chatd create-org` prints.
type NewOrgResult struct {
	RealmID  int64  `json:"realm_id"`
	RealmURL string `json:"realm_url"`
	UserID   int64  `json:"user_id"`
	Email    string `json:"email"`
	APIKey   string `json:"api_key"`
}

// maxRealmNameLength is the reference server's limit on organization names.
const maxRealmNameLength = 40

// normaliseOrg trims and checks a new organization's name (which must not
// be blank), and lowers and checks its host ("localhost" when empty) and
// URL ("http://" + host when empty).
func normaliseOrg(name, host, url *string) error {
	*name = strings.TrimSpace(*name)
	if *name == "" {
		return errorf("Organization name cannot be blank")
	}
	if utf8.RuneCountInString(*name) > maxRealmNameLength {
		return errorf("Organization name is too long (limit: %d characters)", maxRealmNameLength)
	}
	if *host == "" {
		*host = "localhost"
	}
	*host = strings.ToLower(*host)
	if !validHost(*host) {
		return errorf("Invalid host: %s", *host)
	}
	if *url == "" {
		*url = "http://" + *host
	}
	*url = strings.TrimRight(*url, "/")
	return nil
}

// CreateOrg creates an organization and its first owner. It is a
// provisioning operation for the server's operator (the chatd admin
// commands, embedding programs) and checks no actor.
//
// Errors: BAD_REQUEST when the name is empty or too long, the host is taken
// or invalid, or the owner's email, name or password is invalid.
func (s *Service) CreateOrg(ctx context.Context, req NewOrg) (NewOrgResult, error) {
	if err := normaliseOrg(&req.Name, &req.Host, &req.URL); err != nil {
		return NewOrgResult{}, err
	}
	owner := NewUser{Email: req.OwnerEmail, FullName: req.OwnerName, Password: req.OwnerPassword, Role: RoleOwner}
	if err := s.prehash(ctx, &owner); err != nil {
		return NewOrgResult{}, err
	}
	var out NewOrgResult
	err := s.update(ctx, noActor, func(tx storage.Tx) error {
		realm := Realm{
			Name:                   req.Name,
			Description:            req.Description,
			Host:                   req.Host,
			URL:                    req.URL,
			DateCreated:            s.now(),
			DefaultEmailVisibility: EmailVisibleEveryone,
			RealmSettings:          DefaultRealmSettings(),
		}
		if err := tx.CreateRealm(&realm); errors.Is(err, storage.ErrExists) {
			return errorf("An organization with host %s already exists", req.Host)
		} else if err != nil {
			return err
		}
		if err := createSystemGroups(tx, realm); err != nil {
			return err
		}
		u, err := s.provisionUser(tx, realm, owner, false)
		if err != nil {
			return err
		}
		key, err := s.shownAPIKey(u.APIKey)
		if err != nil {
			return err
		}
		out = NewOrgResult{RealmID: realm.ID, RealmURL: realm.URL, UserID: u.ID, Email: u.Email, APIKey: key}
		return nil
	})
	return out, err
}

// DeactivateOrg deactivates an organization: its users can no longer log in
// or use their API keys. It is a provisioning operation for the server's
// operator and checks no actor. Errors: BAD_REQUEST for an unknown
// organization.
func (s *Service) DeactivateOrg(ctx context.Context, realmID int64) error {
	return s.update(ctx, noActor, func(tx storage.Tx) error {
		r, err := tx.Realm(realmID)
		if errors.Is(err, storage.ErrNotFound) {
			return errorf("No such organization: %d", realmID)
		}
		if err != nil {
			return err
		}
		r.Deactivated = true
		return tx.UpdateRealm(r)
	})
}

// Orgs returns every organization on the server, ordered by ID. It is a
// provisioning operation and checks no actor.
func (s *Service) Orgs(ctx context.Context) ([]Realm, error) {
	var out []Realm
	err := s.view(ctx, noActor, func(tx storage.Tx) error {
		var err error
		out, err = tx.Realms()
		return err
	})
	return out, err
}

// AuthenticationMethods are the login methods a server reports, keyed and
// ordered as the API's authentication_methods.
type AuthenticationMethods struct {
	Password        bool `json:"password"`
	Dev             bool `json:"dev"`
	Email           bool `json:"email"`
	LDAP            bool `json:"ldap"`
	RemoteUser      bool `json:"remoteuser"`
	CodeHostA       bool `json:"code_host_a"`
	DirectoryIDP    bool `json:"directory_idp"`
	CodeHostB       bool `json:"code_host_b"`
	DeviceVendorIDP bool `json:"device_vendor_idp"`
	SearchVendorIDP bool `json:"search_vendor_idp"`
	SAML            bool `json:"saml"`
	OpenIDConnect   bool `json:"openid connect"`
	ChatVendorIDP   bool `json:"chat_vendor_idp"`
}

// ExternalAuthenticationMethod is a login method that sends the user to
// another site.
type ExternalAuthenticationMethod struct {
	Name        string  `json:"name"`
	DisplayName string  `json:"display_name"`
	DisplayIcon *string `json:"display_icon"`
	LoginURL    string  `json:"login_url"`
	SignupURL   string  `json:"signup_url"`
}

// ServerSettings is the answer of GET /server_settings. The realm_* fields
// are empty (and left out of the JSON form) when the request reached no
// organization.
type ServerSettings struct {
	AuthenticationMethods         AuthenticationMethods          `json:"authentication_methods"`
	ExternalAuthenticationMethods []ExternalAuthenticationMethod `json:"external_authentication_methods"`
	ServiceFeatureLevel           int                            `json:"service_feature_level"`
	ServiceVersion                string                         `json:"service_version"`
	ServiceMergeBase              string                         `json:"service_merge_base"`
	// The zulip_* names carry the same values for the reference server's
	// clients, which refuse to start without them.
	ZulipFeatureLevel           int     `json:"zulip_feature_level"`
	ZulipVersion                string  `json:"zulip_version"`
	ZulipMergeBase              string  `json:"zulip_merge_base"`
	PushNotificationsEnabled    bool    `json:"push_notifications_enabled"`
	IsIncompatible              bool    `json:"is_incompatible"`
	EmailAuthEnabled            bool    `json:"email_auth_enabled"`
	RequireEmailFormatUsernames bool    `json:"require_email_format_usernames"`
	RealmURI                    string  `json:"realm_uri,omitempty"`
	RealmURL                    string  `json:"realm_url,omitempty"`
	RealmName                   string  `json:"realm_name,omitempty"`
	RealmIcon                   string  `json:"realm_icon,omitempty"`
	RealmDescription            *string `json:"realm_description,omitempty"`
	RealmWebPublicAccessEnabled *bool   `json:"realm_web_public_access_enabled,omitempty"`
}

// ServerSettings returns the public settings of the server and of the
// organization reached through host. It needs no authentication.
//
// Errors: ErrServerSettingsSubdomain when the server hosts several
// organizations and host reaches none of them.
func (s *Service) ServerSettings(ctx context.Context, host string) (ServerSettings, error) {
	methods := s.authenticationMethods()
	out := ServerSettings{
		AuthenticationMethods:         methods,
		ExternalAuthenticationMethods: s.cfg.ExternalAuthenticationMethods,
		ServiceFeatureLevel:           FeatureLevel,
		ServiceVersion:                s.cfg.ServiceVersion,
		ServiceMergeBase:              s.cfg.ServiceVersion,
		ZulipFeatureLevel:             FeatureLevel,
		ZulipVersion:                  s.cfg.ServiceVersion,
		ZulipMergeBase:                s.cfg.ServiceVersion,
		EmailAuthEnabled:              methods.Email,
		// LDAP logins use user names rather than addresses.
		RequireEmailFormatUsernames: !methods.LDAP,
		PushNotificationsEnabled:    s.cfg.PushRelay != nil,
	}
	err := s.view(ctx, noActor, func(tx storage.Tx) error {
		realms, err := tx.Realms()
		if err != nil || len(realms) == 0 {
			return err
		}
		realm, err := s.realmForHost(tx, host)
		if errors.Is(err, ErrInvalidSubdomain) {
			return ErrServerSettingsSubdomain
		}
		if err != nil {
			return err
		}
		description, err := s.realmDescription(tx, &realm)
		if err != nil {
			return err
		}
		webPublic := realm.EnableSpectatorAccess && webPublicChannelsExist(tx, realm.ID)
		out.RealmURI = realm.URL
		out.RealmURL = realm.URL
		out.RealmName = realm.Name
		out.RealmIcon = realmIconURL(realm)
		out.RealmDescription = &description
		out.RealmWebPublicAccessEnabled = &webPublic
		return nil
	})
	return out, err
}

// webPublicChannelsExist reports whether the realm has a channel that
// spectators may read. Channels cannot be made web-public yet, so none
// exists.
func webPublicChannelsExist(storage.Tx, int64) bool { return false }

// AuthenticationMethodNames are the keys of authentication_methods, in
// the API's order: the values Config.AuthenticationMethods may list.
var AuthenticationMethodNames = []string{
	"password", "dev", "email", "ldap", "remoteuser", "code_host_a", "directory_idp", "code_host_b",
	"device_vendor_idp", "search_vendor_idp", "saml", "openid connect", "chat_vendor_idp",
}

// authenticationMethods returns the methods that Config.AuthenticationMethods
// enables; unknown names are ignored.
func (s *Service) authenticationMethods() AuthenticationMethods {
	var m AuthenticationMethods
	for _, name := range s.cfg.AuthenticationMethods {
		switch name {
		case "password":
			m.Password = true
		case "dev":
			m.Dev = true
		case "email":
			m.Email = true
		case "ldap":
			m.LDAP = true
		case "remoteuser":
			m.RemoteUser = true
		case "code_host_a":
			m.CodeHostA = true
		case "directory_idp":
			m.DirectoryIDP = true
		case "code_host_b":
			m.CodeHostB = true
		case "device_vendor_idp":
			m.DeviceVendorIDP = true
		case "search_vendor_idp":
			m.SearchVendorIDP = true
		case "saml":
			m.SAML = true
		case "openid connect":
			m.OpenIDConnect = true
		case "chat_vendor_idp":
			m.ChatVendorIDP = true
		}
	}
	return m
}

// passwordLoginEnabled reports whether password login is configured.
func (s *Service) passwordLoginEnabled() bool {
	return slices.Contains(s.cfg.AuthenticationMethods, "password")
}

// realmIconURL is the default square logo of an organization: an identicon
// derived from its host, as the reference server does for organizations
// without an uploaded icon.
func realmIconURL(r Realm) string {
	sum := md5.Sum([]byte(strings.ToLower(r.Host)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon"
}

// renderPlainText renders plain text as HTML paragraphs, escaping every
// character with a meaning in HTML.
func renderPlainText(text string) string {
	var b strings.Builder
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(html.EscapeString(para), "\n", "<br>\n"))
		b.WriteString("</p>")
	}
	return b.String()
}
