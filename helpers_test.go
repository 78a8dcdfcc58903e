package chat_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // time zones validate as in chatd, whatever the machine has

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/internal/backends"
	"github.com/teamchat/chat/internal/testkit"
	"github.com/teamchat/chat/storage"
)

// forEachStore runs fn once per storage backend (see backends.ForEach).
func forEachStore(t *testing.T, fn func(t *testing.T, newStore func(t *testing.T) storage.Store)) {
	t.Helper()
	backends.ForEach(t, fn)
}

// t0 is the fake clock's starting time. It has sub-second digits so that
// backends must keep full precision, and is not in UTC so that the service
// must normalise it.
var t0 = testkit.T0

// t0JSON is t0 as the wire form of date_joined writes it.
const t0JSON = "2025-03-30T12:34+00:00"

// fakeClock is a settable clock, safe for concurrent use.
type fakeClock = testkit.Clock

func newClock() *fakeClock { return testkit.NewClock(t0) }

// newService returns a service over a fresh store with a fake clock, fast
// password hashing and no practical limit on highlighting. cfg may set other fields; PasswordCost is
// overwritten, and a Now of cfg is called on each reading of the fake
// clock (a hook of the test), its result ignored.
func newService(t *testing.T, newStore func(t *testing.T) storage.Store, cfg chat.Config) (*chat.Service, *fakeClock) {
	t.Helper()
	clock := newClock()
	hook := cfg.Now
	cfg.Now = clock.Now
	if hook != nil {
		cfg.Now = func() time.Time {
			hook()
			return clock.Now()
		}
	}
	cfg.PasswordCost = bcrypt.MinCost
	if cfg.HighlightBudget == 0 {
		// Highlighting is cut at a time, and tests under the race
		// detector on a busy machine compile lexers slowly: the tests
		// that expect highlighting must get it.
		cfg.HighlightBudget = time.Hour
	}
	if cfg.APIKeySecret == nil {
		// Keys are sealed in the store, as chatd keeps them.
		cfg.APIKeySecret = []byte("test secret of the API keys")
	}
	return chat.New(newStore(t), cfg), clock
}

// account is a user of the fixture with what the tests need to know.
type account struct {
	ID       int64
	Email    string // real address as provisioned
	Name     string
	Role     chat.Role
	BotType  chat.BotType
	BotOwner int64
	Timezone string
	Vis      chat.EmailVisibility
	Password string
	APIKey   string
}

// fixture is two organizations with users of every kind.
type fixture struct {
	svc   *chat.Service
	clock *fakeClock

	realm int64 // "Test Org", host localhost:9991
	owner, admin, moderator, member, guest,
	bot, webhook,
	visEveryone, visMembers, visAdmins, visNobody, visModerators *account

	realm2                 int64 // "Other Org", host other.example.com
	owner2, member2, only2 *account

	byID map[int64]*account
}

const (
	host1 = "localhost:9991"
	host2 = "other.example.com"
)

// all returns the accounts of the first organization in ID order.
func (f *fixture) all() []*account {
	return []*account{f.owner, f.admin, f.moderator, f.member, f.guest, f.bot, f.webhook,
		f.visEveryone, f.visMembers, f.visAdmins, f.visNobody, f.visModerators}
}

func newFixture(t *testing.T, newStore func(t *testing.T) storage.Store) *fixture {
	t.Helper()
	return newFixtureWith(t, newStore, chat.Config{})
}

// newFixtureWith is newFixture on a service with the configuration cfg.
func newFixtureWith(t *testing.T, newStore func(t *testing.T) storage.Store, cfg chat.Config) *fixture {
	t.Helper()
	svc, clock := newService(t, newStore, cfg)
	f := &fixture{svc: svc, clock: clock, byID: map[int64]*account{}}
	ctx := t.Context()

	org, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Test Org", Host: host1, OwnerEmail: "owner@example.com",
		OwnerName: "Olivia Owner", OwnerPassword: "owner-password",
	})
	if err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	f.realm = org.RealmID
	f.owner = &account{ID: org.UserID, Email: "owner@example.com", Name: "Olivia Owner",
		Role: chat.RoleOwner, Vis: chat.EmailVisibleEveryone, Password: "owner-password", APIKey: org.APIKey}
	f.byID[f.owner.ID] = f.owner

	add := func(realm int64, a *account) *account {
		t.Helper()
		res, err := svc.ProvisionUser(ctx, realm, chat.NewUser{
			Email: a.Email, FullName: a.Name, Password: a.Password, Role: a.Role,
			BotType: a.BotType, BotOwnerID: a.BotOwner, Timezone: a.Timezone, EmailVisibility: a.Vis,
		})
		if err != nil {
			t.Fatalf("ProvisionUser(%s): %v", a.Email, err)
		}
		a.ID, a.APIKey = res.UserID, res.APIKey
		if a.Role == 0 {
			a.Role = chat.RoleMember
		}
		if a.Vis == 0 || a.BotType != chat.BotNone {
			a.Vis = chat.EmailVisibleEveryone
		}
		f.byID[a.ID] = a
		return a
	}
	f.admin = add(f.realm, &account{Email: "admin@example.com", Name: "Adam Admin", Role: chat.RoleAdmin, Password: "admin-password"})
	f.moderator = add(f.realm, &account{Email: "mod@example.com", Name: "Mona Moderator", Role: chat.RoleModerator, Password: "mod-password"})
	f.member = add(f.realm, &account{Email: "Member@Example.com", Name: "Max Member", Role: chat.RoleMember,
		Password: "member-password", Timezone: "Europe/Berlin"})
	f.guest = add(f.realm, &account{Email: "guest@example.com", Name: "Gus Guest", Role: chat.RoleGuest, Password: "guest-password"})
	f.bot = add(f.realm, &account{Email: "helper-bot@example.com", Name: "Helper Bot", BotType: chat.BotGeneric,
		BotOwner: f.member.ID, Vis: chat.EmailVisibleNobody})
	f.webhook = add(f.realm, &account{Email: "hook-bot@example.com", Name: "Hook Bot", BotType: chat.BotIncomingWebhook})
	f.visEveryone = add(f.realm, &account{Email: "everyone@example.com", Name: "Eve Everyone", Vis: chat.EmailVisibleEveryone})
	f.visMembers = add(f.realm, &account{Email: "members@example.com", Name: "Mel Members", Vis: chat.EmailVisibleMembers})
	f.visAdmins = add(f.realm, &account{Email: "admins@example.com", Name: "Ada Admins", Vis: chat.EmailVisibleAdmins})
	f.visNobody = add(f.realm, &account{Email: "nobody@example.com", Name: "Nora Nobody", Vis: chat.EmailVisibleNobody,
		Password: "nobody-password"})
	f.visModerators = add(f.realm, &account{Email: "moderators@example.com", Name: "Moe Moderators", Vis: chat.EmailVisibleModerators})

	org2, err := svc.CreateOrg(ctx, chat.NewOrg{
		Name: "Other Org", Host: host2, OwnerEmail: "owner2@example.com",
		OwnerName: "Otto Owner", OwnerPassword: "owner2-password",
	})
	if err != nil {
		t.Fatalf("CreateOrg(2): %v", err)
	}
	f.realm2 = org2.RealmID
	f.owner2 = &account{ID: org2.UserID, Email: "owner2@example.com", Name: "Otto Owner", Role: chat.RoleOwner,
		Vis: chat.EmailVisibleEveryone, Password: "owner2-password", APIKey: org2.APIKey}
	f.byID[f.owner2.ID] = f.owner2
	// The same address as f.member, in the other organization.
	f.member2 = add(f.realm2, &account{Email: "member@example.com", Name: "Mia Member", Password: "member2-password",
		Vis: chat.EmailVisibleNobody})
	f.only2 = add(f.realm2, &account{Email: "only2@example.com", Name: "Oscar Only", Password: "only2-password"})
	return f
}

// gravatar computes the third-party avatar URL independently of the package.
func gravatar(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon&version=1"
}

func ptr[T any](v T) *T { return &v }

// placeholder is the API address of a hidden user of an organization whose
// placeholder domain is domain.
func placeholder(id int64, domain string) string {
	return "user" + strconv.FormatInt(id, 10) + "@" + domain
}

// want builds the user object expected for a, as a viewer who can (or
// cannot) see a's address gets it under q, with placeholder domain domain.
func (a *account) want(visible bool, domain string, q chat.UserQuery) chat.User {
	u := chat.User{
		UserID:        a.ID,
		Email:         placeholder(a.ID, domain),
		FullName:      a.Name,
		DateJoined:    t0,
		IsActive:      true,
		IsOwner:       a.Role == chat.RoleOwner,
		IsAdmin:       a.Role == chat.RoleOwner || a.Role == chat.RoleAdmin,
		IsGuest:       a.Role == chat.RoleGuest,
		IsBot:         a.BotType != chat.BotNone,
		BotType:       a.BotType,
		BotOwnerID:    a.BotOwner,
		Role:          a.Role,
		Timezone:      a.Timezone,
		AvatarVersion: 1,
	}
	if a.Vis == chat.EmailVisibleEveryone || u.IsBot {
		u.Email = a.Email
	}
	if visible {
		u.DeliveryEmail = ptr(a.Email)
	}
	if !(q.ClientGravatar && visible) {
		u.AvatarURL = ptr(gravatar(a.Email))
	}
	if q.IncludeCustomProfileFields && !u.IsBot {
		u.ProfileData = map[string]chat.ProfileValue{}
	}
	return u
}

// The assertions of package testkit, under the names these tests use.
var (
	wantErr     = testkit.Err
	wantNoErr   = testkit.NoErr
	wantCodeMsg = testkit.CodeMsg
	diff        = testkit.Diff
)

// updateMessage is Service.UpdateMessage for the tests that check only its
// error.
func updateMessage(svc *chat.Service, ctx context.Context, actor chat.Actor, id int64, edit chat.MessageEdit) error {
	_, err := svc.UpdateMessage(ctx, actor, id, edit)
	return err
}
