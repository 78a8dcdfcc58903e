package chat

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// maxDomainLength is the reference server's limit on allowed domains.
const maxDomainLength = 255

// checkDomain returns why domain (already lower-cased) is not a valid
// allowed domain, or "".
func checkDomain(domain string) string {
	switch {
	case domain == "":
		return "Domain can't be empty."
	case !strings.Contains(domain, "."):
		return "Domain must have at least one dot (.)"
	case utf8.RuneCountInString(domain) > maxDomainLength:
		return "Domain is too long"
	case domain[0] == '.' || domain[len(domain)-1] == '.':
		return "Domain cannot start or end with a dot (.)"
	}
	for _, label := range strings.Split(domain, ".") {
		if label == "" {
			return "Consecutive '.' are not allowed."
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "Subdomains cannot start or end with a '-'."
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return "Domain can only have letters, numbers, '.' and '-'s."
			}
		}
	}
	return ""
}

// errNoDomain is the error for a domain the organization does not list.
func errNoDomain(domain string) *Error {
	return errorf("No entry found for domain %s.", domain)
}

// AddRealmDomain adds an allowed email domain and returns its ID and the
// domain as stored (trimmed and lower-cased). Owners may call it. Every
// active user gets a realm_domains/add event.
//
// Errors: ErrMustBeOwner; "Invalid domain: {reason}" with the reasons of
// checkDomain; "The domain {domain} is already a part of your
// organization."
func (s *Service) AddRealmDomain(ctx context.Context, actor Actor, domain string, allowSubdomains bool) (RealmDomain, error) {
	var out RealmDomain
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpAddRealmDomain)
		if err != nil {
			return err
		}
		domain := strings.ToLower(strings.TrimSpace(domain))
		if reason := checkDomain(domain); reason != "" {
			return errorf("Invalid domain: %s", reason)
		}
		d := RealmDomain{RealmID: realm.ID, Domain: domain, AllowSubdomains: allowSubdomains}
		if err := tx.CreateRealmDomain(&d); errors.Is(err, storage.ErrExists) {
			return errorf("The domain %s is already a part of your organization.", domain)
		} else if err != nil {
			return err
		}
		out = d
		return emitToActive(tx, emit, realm.ID, map[string]any{
			"type": "realm_domains", "op": "add", "realm_domain": d,
		})
	})
	return out, err
}

// RealmDomains returns the organization's allowed email domains in the
// order they were added. Any active user may call it.
func (s *Service) RealmDomains(ctx context.Context, actor Actor) ([]RealmDomain, error) {
	var out []RealmDomain
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		out, err = tx.RealmDomains(realm.ID)
		return err
	})
	return out, err
}

// UpdateRealmDomain changes whether an allowed domain admits its
// subdomains. domain is matched exactly, as stored. Owners may call it;
// every active user gets a realm_domains/change event.
//
// Errors: ErrMustBeOwner; "No entry found for domain {domain}."
func (s *Service) UpdateRealmDomain(ctx context.Context, actor Actor, domain string, allowSubdomains bool) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpUpdateRealmDomain)
		if err != nil {
			return err
		}
		d, err := storage.RealmDomainByName(tx, realm.ID, domain)
		if errors.Is(err, storage.ErrNotFound) {
			return errNoDomain(domain)
		} else if err != nil {
			return err
		}
		d.AllowSubdomains = allowSubdomains
		if err := tx.UpdateRealmDomain(d); err != nil {
			return err
		}
		return emitToActive(tx, emit, realm.ID, map[string]any{
			"type": "realm_domains", "op": "change", "realm_domain": d,
		})
	})
}

// DeleteRealmDomain removes an allowed domain, matched exactly. Removing
// the last one also lifts the restriction to the allowed domains, since no
// address could pass it. Owners may call it; every active user gets a
// realm_domains/remove event (and a realm/update event when the
// restriction is lifted).
//
// Errors: ErrMustBeOwner; "No entry found for domain {domain}."
func (s *Service) DeleteRealmDomain(ctx context.Context, actor Actor, domain string) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpDeleteRealmDomain)
		if err != nil {
			return err
		}
		d, err := storage.RealmDomainByName(tx, realm.ID, domain)
		if errors.Is(err, storage.ErrNotFound) {
			return errNoDomain(domain)
		} else if err != nil {
			return err
		}
		if err := tx.DeleteRealmDomain(realm.ID, d.ID); err != nil {
			return err
		}
		if err := emitToActive(tx, emit, realm.ID, map[string]any{
			"type": "realm_domains", "op": "remove", "domain": d.Domain,
		}); err != nil {
			return err
		}
		rest, err := tx.RealmDomains(realm.ID)
		if err != nil || len(rest) > 0 || !realm.EmailsRestrictedToDomains {
			return err
		}
		realm.EmailsRestrictedToDomains = false
		if err := tx.UpdateRealm(realm); err != nil {
			return err
		}
		return emitRealmUpdates(tx, emit, realm.ID, []RealmSettingChange{{Name: "emails_restricted_to_domains", Value: false}})
	})
}

// emitToActive emits one event to every active user of the realm.
func emitToActive(_ storage.Tx, emit func(Event), realmID int64, payload map[string]any) error {
	emit(Event{RealmID: realmID, AllUsers: true, Payload: payload})
	return nil
}

// Errors of the address rules of new users.
var (
	ErrDisposableEmail   = &Error{Code: CodeBadRequest, Msg: "Disposable email addresses are not allowed in this organization"}
	ErrEmailContainsPlus = &Error{Code: CodeBadRequest, Msg: "Email addresses containing + are not allowed."}
)

// checkEmailAllowed applies the organization's address rules to a new
// user's (syntactically valid) address: with domains restricted, no "+" in
// the local part and a domain on the list; otherwise, when the
// organization refuses them, no disposable-mail domain.
func (s *Service) checkEmailAllowed(tx storage.Tx, realm Realm, email string) error {
	at := strings.LastIndexByte(email, '@')
	local, domain := email[:at], strings.ToLower(email[at+1:])
	if !realm.EmailsRestrictedToDomains {
		if realm.DisallowDisposableEmailAddresses && s.cfg.DisposableEmailDomain(domain) {
			return ErrDisposableEmail
		}
		return nil
	}
	if strings.Contains(local, "+") {
		return ErrEmailContainsPlus
	}
	domains, err := tx.RealmDomains(realm.ID)
	if err != nil {
		return err
	}
	for _, d := range domains {
		if d.Domain == domain || (d.AllowSubdomains && strings.HasSuffix(domain, "."+d.Domain)) {
			return nil
		}
	}
	return errorf("Email '%s' not allowed in this organization", email)
}

// disposableDomains are well-known disposable-mail services.
var disposableDomains = map[string]bool{
	"10minutemail.com": true, "20minutemail.com": true, "33mail.com": true, "dispostable.com": true,
	"emailondeck.com": true, "fakeinbox.com": true, "getairmail.com": true, "getnada.com": true,
	"guerrillamail.biz": true, "guerrillamail.com": true, "guerrillamail.de": true, "guerrillamail.info": true,
	"guerrillamail.net": true, "guerrillamail.org": true, "guerrillamailblock.com": true, "harakirimail.com": true,
	"incognitomail.org": true, "mailcatch.com": true, "maildrop.cc": true, "mailinator.com": true,
	"mailinator.net": true, "mailnesia.com": true, "mintemail.com": true, "mohmal.com": true,
	"mytemp.email": true, "sharklasers.com": true, "spamgourmet.com": true, "temp-mail.org": true,
	"tempail.com": true, "tempmail.com": true, "tempmailo.com": true, "tempr.email": true,
	"throwawaymail.com": true, "trashmail.com": true, "trashmail.de": true, "yopmail.com": true,
	"yopmail.fr": true, "yopmail.net": true,
}

// IsDisposableEmailDomain reports whether a lower-case domain, or a domain
// it is a subdomain of, is on a short built-in list of well-known
// disposable-mail services. Servers that need a complete, maintained list
// set Config.DisposableEmailDomain.
func IsDisposableEmailDomain(domain string) bool {
	for domain != "" {
		if disposableDomains[domain] {
			return true
		}
		_, rest, ok := strings.Cut(domain, ".")
		if !ok {
			break
		}
		domain = rest
	}
	return false
}
