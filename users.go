package chat

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/teamchat/chat/storage"
)

// Avatar sources.
const (
	// AvatarGravatar means the avatar comes from the third-party provider,
	// computed from the email address.
	AvatarGravatar = "G"
)

// User is a user object as the API describes it, filled for the user who
// asked: DeliveryEmail is nil when the requester may not see the address,
// AvatarURL is nil when the client computes it, ProfileData is nil unless
// custom profile fields were requested. Its JSON form is exactly the wire
// form: bot_type is present on every object (null for humans), bot_owner_id
// only on bots, is_deleted only when true.
type User struct {
	UserID         int64                   `json:"user_id"`
	DeliveryEmail  *string                 `json:"delivery_email"`
	Email          string                  `json:"email"`
	FullName       string                  `json:"full_name"`
	DateJoined     time.Time               `json:"date_joined"`
	IsActive       bool                    `json:"is_active"`
	IsOwner        bool                    `json:"is_owner"`
	IsAdmin        bool                    `json:"is_admin"`
	IsGuest        bool                    `json:"is_guest"`
	IsBot          bool                    `json:"is_bot"`
	BotType        BotType                 `json:"bot_type"`
	BotOwnerID     int64                   `json:"bot_owner_id"`
	Role           Role                    `json:"role"`
	Timezone       string                  `json:"timezone"`
	AvatarURL      *string                 `json:"avatar_url"`
	AvatarVersion  int                     `json:"avatar_version"`
	IsImportedStub bool                    `json:"is_imported_stub"`
	IsDeleted      bool                    `json:"is_deleted"`
	ProfileData    map[string]ProfileValue `json:"profile_data"`
}

// ProfileValue is one custom profile field value of a user.
type ProfileValue struct {
	Value         string  `json:"value"`
	RenderedValue *string `json:"rendered_value,omitempty"`
}

// dateJoinedLayout is the reference server's format: minute precision with
// a numeric offset, such as 2025-03-30T12:34+00:00.
const dateJoinedLayout = "2006-01-02T15:04-07:00"

// MarshalJSON encodes the user in its wire form.
func (u User) MarshalJSON() ([]byte, error) { return u.AppendJSON(nil), nil }

// AppendJSON appends the wire form of the user to b. It writes the object
// directly, without reflection, because user lists are the largest answers
// the service gives.
func (u *User) AppendJSON(b []byte) []byte { return u.appendJSON(b, true) }

// appendJSON appends the wire form, without is_active when withActive is
// false (lists whose name says it, such as realm_non_active_users).
func (u *User) appendJSON(b []byte, withActive bool) []byte {
	b = append(b, `{"user_id":`...)
	b = strconv.AppendInt(b, u.UserID, 10)
	b = append(b, `,"delivery_email":`...)
	if u.DeliveryEmail == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *u.DeliveryEmail)
	}
	b = append(b, `,"email":`...)
	b = appendJSONString(b, u.Email)
	b = append(b, `,"full_name":`...)
	b = appendJSONString(b, u.FullName)
	b = append(b, `,"date_joined":"`...)
	b = u.DateJoined.UTC().AppendFormat(b, dateJoinedLayout)
	b = append(b, '"')
	if withActive {
		b = append(b, `,"is_active":`...)
		b = strconv.AppendBool(b, u.IsActive)
	}
	b = append(b, `,"is_owner":`...)
	b = strconv.AppendBool(b, u.IsOwner)
	b = append(b, `,"is_admin":`...)
	b = strconv.AppendBool(b, u.IsAdmin)
	b = append(b, `,"is_guest":`...)
	b = strconv.AppendBool(b, u.IsGuest)
	b = append(b, `,"is_bot":`...)
	b = strconv.AppendBool(b, u.IsBot)
	b = append(b, `,"bot_type":`...)
	if u.IsBot {
		b = strconv.AppendInt(b, int64(u.BotType), 10)
		b = append(b, `,"bot_owner_id":`...)
		if u.BotOwnerID == 0 {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, u.BotOwnerID, 10)
		}
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"role":`...)
	b = strconv.AppendInt(b, int64(u.Role), 10)
	b = append(b, `,"timezone":`...)
	b = appendJSONString(b, u.Timezone)
	b = append(b, `,"avatar_url":`...)
	if u.AvatarURL == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *u.AvatarURL)
	}
	b = append(b, `,"avatar_version":`...)
	b = strconv.AppendInt(b, int64(u.AvatarVersion), 10)
	b = append(b, `,"is_imported_stub":`...)
	b = strconv.AppendBool(b, u.IsImportedStub)
	if u.IsDeleted {
		b = append(b, `,"is_deleted":true`...)
	}
	if u.ProfileData != nil {
		b = append(b, `,"profile_data":`...)
		b = appendProfileData(b, u.ProfileData)
	}
	return append(b, '}')
}

// Users is a list of user objects; its AppendJSON writes a JSON array.
type Users []User

// AppendJSON appends the JSON array of the users to b.
func (us Users) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i := range us {
		if i > 0 {
			b = append(b, ',')
		}
		b = us[i].AppendJSON(b)
	}
	return append(b, ']')
}

// SizeHint estimates the length of the list's JSON form, so that encoders
// can allocate once.
func (us Users) SizeHint() int { return 64 + 420*len(us) }

// MarshalJSON encodes the list as a JSON array.
func (us Users) MarshalJSON() ([]byte, error) { return us.AppendJSON(nil), nil }

// UserQuery holds the options of the user-reading operations.
type UserQuery struct {
	// ClientGravatar says the client computes third-party avatar URLs
	// itself, so avatar_url is null where it could.
	ClientGravatar bool
	// IncludeCustomProfileFields adds profile_data to human users.
	IncludeCustomProfileFields bool
	// UserIDs limits Users to these IDs; nil means every user. Unknown IDs
	// are left out of the answer.
	UserIDs []int64
}

// viewer is what view-dependent fields of a user object depend on.
type viewer struct {
	user  storage.UserRecord
	realm Realm
	// emailDomain is the domain of placeholder addresses in the realm.
	emailDomain string
	query       UserQuery
	// profile holds the custom profile field values of the users to view,
	// by user ID, once loadProfiles has run.
	profile map[int64]map[string]ProfileValue
}

// canSeeEmail reports whether the viewer may see target's real address.
func (v *viewer) canSeeEmail(target *storage.UserRecord) bool { return emailVisibleTo(&v.user, target) }

// emailVisibleTo reports whether target's email visibility lets viewer see
// their real address. Addresses hidden from the viewer do not name anyone
// for them, anywhere: a real address the viewer may not see finds nobody,
// as an unknown one does, so that nothing confirms it.
func emailVisibleTo(viewer, target *storage.UserRecord) bool {
	if target.ID == viewer.ID || target.IsBot() {
		return true
	}
	role := viewer.Role
	switch target.EmailVisibility {
	case EmailVisibleEveryone:
		return true
	case EmailVisibleMembers:
		return role != RoleGuest
	case EmailVisibleModerators:
		return role.IsModerator()
	case EmailVisibleAdmins:
		return role.IsAdmin()
	}
	return false
}

// apiEmail returns the address by which the API names target: the real one
// when the target lets everyone see it, otherwise the placeholder address.
func apiEmail(target *storage.UserRecord, domain string) string {
	if target.EmailVisibility == EmailVisibleEveryone || target.IsBot() {
		return target.Email
	}
	return placeholderEmail(target.ID, domain)
}

func placeholderEmail(id int64, domain string) string {
	return "user" + strconv.FormatInt(id, 10) + "@" + domain
}

// gravatarURL is the third-party avatar URL of an address.
func gravatarURL(email string, version int) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) +
		"?d=identicon&version=" + strconv.Itoa(version)
}

// view builds the user object of target as v sees it.
func (v *viewer) view(target *storage.UserRecord) User {
	seeEmail := v.canSeeEmail(target)
	u := User{
		UserID:         target.ID,
		Email:          apiEmail(target, v.emailDomain),
		FullName:       target.FullName,
		DateJoined:     target.DateJoined,
		IsActive:       target.IsActive,
		IsOwner:        target.Role == RoleOwner,
		IsAdmin:        target.Role.IsAdmin(),
		IsGuest:        target.Role == RoleGuest,
		IsBot:          target.IsBot(),
		BotType:        target.BotType,
		BotOwnerID:     target.BotOwnerID,
		Role:           target.Role,
		Timezone:       target.Timezone,
		AvatarVersion:  target.AvatarVersion,
		IsImportedStub: target.IsImportedStub,
	}
	if seeEmail {
		// target is the caller's own copy, so pointing into it is safe and
		// saves an allocation per user in long lists.
		u.DeliveryEmail = &target.Email
	}
	if !(v.query.ClientGravatar && seeEmail && target.AvatarSource == AvatarGravatar) {
		url := gravatarURL(target.Email, target.AvatarVersion)
		u.AvatarURL = &url
	}
	if v.query.IncludeCustomProfileFields && !target.IsBot() {
		u.ProfileData = v.profile[target.ID]
		if u.ProfileData == nil {
			u.ProfileData = map[string]ProfileValue{}
		}
	}
	return u
}

// loadProfiles reads, in one query, the custom profile field values of the
// users (every user of the realm when ids is nil) when the query asks for
// them.
func (v *viewer) loadProfiles(tx storage.Tx, ids []int64) error {
	if !v.query.IncludeCustomProfileFields {
		return nil
	}
	values, err := tx.ProfileValues(v.realm.ID, ids)
	if err != nil {
		return err
	}
	v.profile = make(map[int64]map[string]ProfileValue)
	for _, pv := range values {
		m := v.profile[pv.UserID]
		if m == nil {
			m = map[string]ProfileValue{}
			v.profile[pv.UserID] = m
		}
		m[strconv.FormatInt(pv.FieldID, 10)] = ProfileValue{Value: pv.Value, RenderedValue: pv.RenderedValue}
	}
	return nil
}

// newViewer reads the acting user and the realm for a read operation.
func (s *Service) newViewer(tx storage.Tx, actor Actor, q UserQuery) (*viewer, error) {
	user, realm, err := s.actor(tx, actor)
	if err != nil {
		return nil, err
	}
	return &viewer{user: user, realm: realm, emailDomain: s.emailDomain(realm), query: q}, nil
}

// actor reads the acting user and its realm inside a transaction and checks
// that both are active.
func (s *Service) actor(tx storage.Tx, actor Actor) (storage.UserRecord, Realm, error) {
	return s.actorFrom(tx, actor, nil)
}

// actorFrom is actor with records read before in tx: known holds some
// users with their realms, by ID; the others are read here.
func (s *Service) actorFrom(tx storage.Tx, actor Actor, known *actorRecords) (storage.UserRecord, Realm, error) {
	if p := actor.pending; p != nil && !p.done.Load() {
		// The request's credentials are checked here, against the
		// records the operation reads anyway.
		return s.verifyPending(tx, p, known)
	}
	if actor.id == 0 {
		return storage.UserRecord{}, Realm{}, ErrNotLoggedIn
	}
	u, r, err := known.read(tx, actor.id)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.UserRecord{}, Realm{}, ErrNotLoggedIn
	}
	if err != nil {
		return storage.UserRecord{}, Realm{}, err
	}
	if !u.IsActive {
		return storage.UserRecord{}, Realm{}, ErrAccountDeactivated
	}
	if r.Deactivated {
		return storage.UserRecord{}, Realm{}, ErrRealmDeactivated
	}
	return u, r, nil
}

// targetUser reads a user of the actor's realm; users of other realms do
// not exist as far as the actor can tell.
func targetUser(tx storage.Tx, realmID, id int64) (storage.UserRecord, error) {
	u, err := tx.User(id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && u.RealmID != realmID) {
		return storage.UserRecord{}, ErrNoSuchUser
	}
	return u, err
}

// Users returns the user objects of the actor's organization, bots and
// deactivated users included, ordered by ID. Any active user may call it.
// Errors: ErrNotLoggedIn, ErrAccountDeactivated, ErrRealmDeactivated.
func (s *Service) Users(ctx context.Context, actor Actor, q UserQuery) (Users, error) {
	var out Users
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, q)
		if err != nil {
			return err
		}
		records, err := tx.Users(v.realm.ID, q.UserIDs)
		if err != nil {
			return err
		}
		if err := v.loadProfiles(tx, q.UserIDs); err != nil {
			return err
		}
		out = make(Users, len(records))
		for i := range records {
			out[i] = v.view(&records[i])
		}
		return nil
	})
	return out, err
}

// User returns the user object of the user with the ID, in the actor's
// organization. Errors: ErrNoSuchUser, and those of Users.
func (s *Service) User(ctx context.Context, actor Actor, id int64, q UserQuery) (User, error) {
	var out User
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, q)
		if err != nil {
			return err
		}
		target, err := targetUser(tx, v.realm.ID, id)
		if err != nil {
			return err
		}
		if err := v.loadProfiles(tx, []int64{target.ID}); err != nil {
			return err
		}
		out = v.view(&target)
		return nil
	})
	return out, err
}

// UserByEmail returns the user object of the user named by email, which is
// either the placeholder address user{id}@{realm domain} (any user) or a real
// address that the target lets the actor see (compared without regard to
// case). Errors: ErrNoSuchUser, and those of Users.
func (s *Service) UserByEmail(ctx context.Context, actor Actor, email string, q UserQuery) (User, error) {
	var out User
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, q)
		if err != nil {
			return err
		}
		var target storage.UserRecord
		if id, ok := placeholderID(email, v.emailDomain); ok {
			target, err = targetUser(tx, v.realm.ID, id)
		} else {
			target, err = tx.UserByEmail(v.realm.ID, email)
			if errors.Is(err, storage.ErrNotFound) || (err == nil && !v.canSeeEmail(&target)) {
				err = ErrNoSuchUser
			}
		}
		if err != nil {
			return err
		}
		if err := v.loadProfiles(tx, []int64{target.ID}); err != nil {
			return err
		}
		out = v.view(&target)
		return nil
	})
	return out, err
}

// placeholderID extracts the user ID of a placeholder address. Like the
// reference server, it matches at the start of the string only.
func placeholderID(email, domain string) (int64, bool) {
	rest, ok := strings.CutPrefix(email, "user")
	if !ok {
		return 0, false
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits == 0 || !strings.HasPrefix(rest[digits:], "@"+domain) {
		return 0, false
	}
	id, err := strconv.ParseInt(rest[:digits], 10, 64)
	return id, err == nil
}

// Me returns the acting user's own object, with avatar_url always set and
// profile_data for humans. Errors: those of Users.
func (s *Service) Me(ctx context.Context, actor Actor) (User, error) {
	var out User
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		v, err := s.newViewer(tx, actor, UserQuery{IncludeCustomProfileFields: true})
		if err != nil {
			return err
		}
		if err := v.loadProfiles(tx, []int64{v.user.ID}); err != nil {
			return err
		}
		out = v.view(&v.user)
		return nil
	})
	return out, err
}
