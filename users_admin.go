package chat

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Full-name limits.
const (
	minFullNameLength = 2
	maxFullNameLength = 100
	// nameInvalidChars may not appear in a full name: they break mentions
	// and Markdown.
	nameInvalidChars = "*`\\>\"@"
)

// checkFullName validates and trims a full name.
func checkFullName(name string) (string, error) {
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	switch {
	case n > maxFullNameLength:
		return "", ErrNameTooLong
	case n < minFullNameLength:
		return "", ErrNameTooShort
	}
	for _, r := range name {
		if strings.ContainsRune(nameInvalidChars, r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
			unicode.Is(unicode.Co, r) || unicode.Is(unicode.Cs, r) || r == utf8.RuneError {
			return "", ErrNameInvalidChars
		}
	}
	// A trailing "|123" would be read as a mention's user ID.
	if i := strings.LastIndexByte(name, '|'); i >= 0 && i+1 < len(name) && allDigits(name[i+1:]) {
		return "", ErrNameInvalidFormat
	}
	return name, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// validEmail reports whether s is a plain address (no display name) whose
// domain is a valid domain name.
func validEmail(s string) bool {
	if s == "" || len(s) > 254 || strings.TrimSpace(s) != s {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && validDomain(s[at+1:])
}

// validDomain reports whether d is "localhost" or a dotted domain name of
// letters, digits and hyphens whose last label is alphabetic.
func validDomain(d string) bool {
	if d == "localhost" {
		return true
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 || len(d) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	for i := 0; i < len(tld); i++ {
		if c := tld[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return len(tld) >= 2
}

// NewUser describes an account to create.
type NewUser struct {
	Email    string
	FullName string
	// Password, when not empty, lets the user log in with it; it must have
	// at least six characters.
	Password string
	// Role defaults to RoleMember.
	Role Role
	// BotType makes the account a bot; zero means a human.
	BotType BotType
	// BotOwnerID is the owner of a bot; zero for none.
	BotOwnerID int64
	// Timezone is an IANA time zone name; empty for unset.
	Timezone string
	// EmailVisibility says who may see the real address; zero means the
	// organization's default for new users. Bots are always visible.
	EmailVisibility EmailVisibility
	// CanChangeUserEmails grants the special permission that lets an owner
	// change other users' email addresses (PATCH /users/{user_id}).
	CanChangeUserEmails bool
	// passwordHash is Password hashed before the transaction (prehash).
	passwordHash string
}

// NewUserResult describes a created account. Its JSON form is what
// `chatd create-user` prints.
type NewUserResult struct {
	UserID int64  `json:"user_id"`
	Email  string `json:"email"`
	APIKey string `json:"api_key"`
}

// provisionUser validates req and stores the account, in the checking order
// of the reference server (name, address, the organization's address rules,
// uniqueness, password).
// With passwordRequired, an empty password is too weak rather than absent.
// prehash hashes the password of req before the transaction that creates
// the account: bcrypt takes tens of milliseconds, which a store with one
// writer (SQLite) would make every organization's writes wait for. A
// password provisionUser refuses is left to it.
func (s *Service) prehash(ctx context.Context, req *NewUser) error {
	if req.Password == "" || utf8.RuneCountInString(req.Password) < minPasswordLength {
		return nil
	}
	h, err := s.hashPassword(ctx, req.Password)
	req.passwordHash = h
	return err
}

func (s *Service) provisionUser(tx storage.Tx, realm Realm, req NewUser, passwordRequired bool) (storage.UserRecord, error) {
	name, err := checkFullName(req.FullName)
	if err != nil {
		return storage.UserRecord{}, err
	}
	if !validEmail(req.Email) {
		return storage.UserRecord{}, ErrBadEmail
	}
	// Bots' addresses are the service's own, not the people's.
	if req.BotType == BotNone {
		if err := s.checkEmailAllowed(tx, realm, req.Email); err != nil {
			return storage.UserRecord{}, err
		}
	}
	if req.Role == 0 {
		req.Role = RoleMember
	}
	if !req.Role.Valid() {
		return storage.UserRecord{}, errorf("Invalid role: Value error, Not in the list of possible values")
	}
	if req.EmailVisibility == 0 {
		req.EmailVisibility = realm.DefaultEmailVisibility
	}
	if !req.EmailVisibility.Valid() {
		return storage.UserRecord{}, errorf("Invalid email_address_visibility")
	}
	if req.Timezone != "" && !validTimezone(req.Timezone) {
		return storage.UserRecord{}, errorf("Invalid timezone")
	}
	if !req.BotType.Valid() {
		return storage.UserRecord{}, errorf("Invalid bot type")
	}
	if req.BotOwnerID != 0 {
		if _, err := targetUser(tx, realm.ID, req.BotOwnerID); err != nil {
			return storage.UserRecord{}, err
		}
	}
	if _, err := tx.UserByEmail(realm.ID, req.Email); err == nil {
		return storage.UserRecord{}, ErrEmailInUse
	} else if !errors.Is(err, storage.ErrNotFound) {
		return storage.UserRecord{}, err
	}
	u := storage.UserRecord{
		RealmID:         realm.ID,
		Email:           req.Email,
		FullName:        name,
		Role:            req.Role,
		IsActive:        true,
		BotType:         req.BotType,
		BotOwnerID:      req.BotOwnerID,
		DateJoined:      s.now(),
		Timezone:        req.Timezone,
		AvatarSource:    AvatarGravatar,
		AvatarVersion:   1,
		EmailVisibility: req.EmailVisibility,
		PresenceEnabled: true,

		CanChangeUserEmails: req.CanChangeUserEmails,
	}
	if u.IsBot() {
		u.EmailVisibility = EmailVisibleEveryone
	}
	if req.Password != "" || passwordRequired {
		if utf8.RuneCountInString(req.Password) < minPasswordLength {
			return storage.UserRecord{}, ErrPasswordTooWeak
		}
		u.PasswordHash = req.passwordHash
		if u.PasswordHash == "" {
			// Callers hash before their transaction (prehash); this is
			// for those that did not, and has no request to end it.
			if u.PasswordHash, err = s.hashPassword(context.Background(), req.Password); err != nil {
				return storage.UserRecord{}, err
			}
		}
	}
	if _, u.APIKey, err = s.newStoredAPIKey(); err != nil {
		return storage.UserRecord{}, err
	}
	if err := tx.CreateUser(&u); errors.Is(err, storage.ErrExists) {
		return storage.UserRecord{}, ErrEmailInUse
	} else if err != nil {
		return storage.UserRecord{}, err
	}
	return u, nil
}

// ProvisionUser creates an account of any role or bot type in the
// organization and emits its realm_user add event; a human account is
// subscribed to the default channels, with their recent history, as
// CreateUser does. It is a provisioning operation for the server's operator
// (`chatd create-user`, embedding programs) and checks no actor.
//
// Errors: BAD_REQUEST for an unknown organization, and those of CreateUser.
func (s *Service) ProvisionUser(ctx context.Context, realmID int64, req NewUser) (NewUserResult, error) {
	var out NewUserResult
	if err := s.prehash(ctx, &req); err != nil {
		return out, err
	}
	err := s.updateWithEvents(ctx, noActor, func(tx storage.Tx, emit func(Event)) error {
		realm, err := tx.Realm(realmID)
		if errors.Is(err, storage.ErrNotFound) {
			return errorf("No such organization: %d", realmID)
		}
		if err != nil {
			return err
		}
		u, err := s.provisionUser(tx, realm, req, false)
		if err != nil {
			return err
		}
		key, err := s.shownAPIKey(u.APIKey)
		if err != nil {
			return err
		}
		out = NewUserResult{UserID: u.ID, Email: u.Email, APIKey: key}
		if err := s.emitUserAdded(tx, emit, realm, &u); err != nil {
			return err
		}
		return s.setUpNewHuman(tx, emit, realm, &u)
	})
	return out, err
}

// CreateUser creates a member account with a password, as POST /users does,
// and emits its realm_user add event. As the reference does, the new user
// is subscribed to the organization's default channels and given their
// messages of the last twelve weeks (at most 1 000, the newest 20 unread).
// Administrators and owners may call it.
//
// Errors, in the order they are checked: ErrMustBeAdmin; ErrNameTooLong,
// ErrNameTooShort, ErrNameInvalidChars, ErrNameInvalidFormat; ErrBadEmail;
// with domains restricted ErrEmailContainsPlus and "Email '{email}' not
// allowed in this organization", otherwise ErrDisposableEmail;
// ErrEmailInUse; ErrPasswordTooWeak.
func (s *Service) CreateUser(ctx context.Context, actor Actor, email, password, fullName string) (int64, error) {
	var id int64
	req := NewUser{Email: email, FullName: fullName, Password: password}
	if err := s.view(ctx, actor, func(tx storage.Tx) error { _, _, err := s.admit(tx, actor, OpCreateUser); return err }); err != nil {
		return 0, err // a refused caller costs no hashing
	}
	if err := s.prehash(ctx, &req); err != nil {
		return 0, err
	}
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		_, realm, err := s.admit(tx, actor, OpCreateUser)
		if err != nil {
			return err
		}
		u, err := s.provisionUser(tx, realm, req, true)
		if err != nil {
			return err
		}
		id = u.ID
		if err := s.emitUserAdded(tx, emit, realm, &u); err != nil {
			return err
		}
		return s.setUpNewHuman(tx, emit, realm, &u)
	})
	return id, err
}

// DeactivateUser deactivates a human account and the bots it owns.
// Administrators may call it; deactivating an owner takes an owner.
//
// Errors, in the order they are checked: ErrNoSuchUser
// (unknown user, another organization's, or a bot); ErrUserDeactivated;
// ErrInsufficientPermission; ErrMustBeOwner; ErrCannotDeactivateOwner.
func (s *Service) DeactivateUser(ctx context.Context, actor Actor, target int64) error {
	var dropped []int64
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		dropped = dropped[:0]
		admin, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		u, err := targetUser(tx, realm.ID, target)
		if err != nil {
			return err
		}
		switch {
		case u.IsBot():
			return ErrNoSuchUser
		case !u.IsActive:
			return ErrUserDeactivated
		case !admin.Role.IsAdmin():
			return ErrInsufficientPermission
		case u.Role == RoleOwner && admin.Role != RoleOwner:
			return ErrMustBeOwner
		}
		if u.Role == RoleOwner {
			only, err := onlyActiveOwner(tx, realm.ID, u.ID)
			if err != nil {
				return err
			}
			if only {
				return ErrCannotDeactivateOwner
			}
		}
		u.IsActive = false
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		bots, err := deactivateOwnedBots(tx, u.ID)
		if err != nil {
			return err
		}
		dropped = append(append(dropped, u.ID), bots...)
		return emitActiveChange(tx, emit, realm.ID, u.ID, false)
	})
	// The accounts can no longer fetch events: free their queues.
	for _, id := range dropped {
		s.hub.DropUserQueues(id)
	}
	return err
}

// emitUserAdded emits the realm_user add event of a new account to every
// active user of the realm, the new one included: the person as each of
// them sees it, with delivery_email only for those the new user's email
// visibility shows it to (one event per way of seeing it). An address that
// everyone sees needs one event for the realm and no read of its users.
func (s *Service) emitUserAdded(tx storage.Tx, emit func(Event), realm Realm, u *storage.UserRecord) error {
	send := func(reader *storage.UserRecord, ev Event) {
		// A new user has no profile data yet; the reference still sends
		// the empty profile_data, which clients read.
		v := &viewer{user: *reader, realm: realm, emailDomain: s.emailDomain(realm),
			query: UserQuery{IncludeCustomProfileFields: true}}
		ev.RealmID = realm.ID
		ev.Payload = map[string]any{"type": "realm_user", "op": "add", "person": v.view(u)}
		emit(ev)
	}
	if u.EmailVisibility == EmailVisibleEveryone || u.IsBot() {
		send(u, Event{AllUsers: true})
		return nil
	}
	users, err := tx.Users(realm.ID, nil)
	if err != nil {
		return err
	}
	var see, notSee []int64
	var seer, other *storage.UserRecord
	for i := range users {
		r := &users[i]
		switch {
		case !r.IsActive:
		case emailVisibleTo(r, u):
			see = append(see, r.ID)
			if seer == nil {
				seer = r
			}
		default:
			notSee = append(notSee, r.ID)
			if other == nil {
				other = r
			}
		}
	}
	if len(see) > 0 {
		send(seer, Event{UserIDs: see})
	}
	if len(notSee) > 0 {
		send(other, Event{UserIDs: notSee})
	}
	return nil
}

// emitActiveChange emits the realm_user update event of an account that was
// deactivated or reactivated, to every active user of the realm.
func emitActiveChange(_ storage.Tx, emit func(Event), realmID, userID int64, active bool) error {
	emit(Event{RealmID: realmID, AllUsers: true, Payload: map[string]any{
		"type": "realm_user", "op": "update",
		"person": map[string]any{"user_id": userID, "is_active": active},
	}})
	return nil
}

// onlyActiveOwner reports whether id is the realm's only active human owner.
func onlyActiveOwner(tx storage.Tx, realmID, id int64) (bool, error) {
	owners, err := storage.UsersByRole(tx, realmID, RoleOwner)
	if err != nil {
		return false, err
	}
	for _, o := range owners {
		if o.ID != id && o.IsActive && !o.IsBot() {
			return false, nil
		}
	}
	return true, nil
}

// deactivateOwnedBots deactivates the active bots owned by ownerID.
// It returns their IDs.
func deactivateOwnedBots(tx storage.Tx, ownerID int64) ([]int64, error) {
	bots, err := storage.BotsOwnedBy(tx, ownerID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, b := range bots {
		if b.IsActive {
			b.IsActive = false
			if err := tx.UpdateUser(b); err != nil {
				return nil, err
			}
			ids = append(ids, b.ID)
		}
	}
	return ids, nil
}

// ReactivateUser reactivates an account; an active one is accepted as it is.
// Administrators may call it, and the owner of a bot for that bot.
//
// Errors: ErrNoSuchUser; ErrInsufficientPermission.
func (s *Service) ReactivateUser(ctx context.Context, actor Actor, target int64) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		admin, realm, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		u, err := targetUser(tx, realm.ID, target)
		if err != nil {
			return err
		}
		if !admin.Role.IsAdmin() && !(u.IsBot() && u.BotOwnerID == admin.ID) {
			return ErrInsufficientPermission
		}
		if u.IsActive {
			return nil
		}
		u.IsActive = true
		if err := tx.UpdateUser(u); err != nil {
			return err
		}
		return emitActiveChange(tx, emit, realm.ID, u.ID, true)
	})
}

// validTimezone reports whether tz names an IANA time zone known to the
// program: its embedded database when it imports time/tzdata (as chatd
// does), else the system's.
func validTimezone(tz string) bool {
	if tz == "Local" {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}
