package chat_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// gatedCalls runs, through the Go API, each operation whose access level
// is above AnyUser, with arguments that do not matter: the level is
// checked before them.
var gatedCalls = map[chat.Operation]func(ctx context.Context, svc *chat.Service, a chat.Actor) error{
	chat.OpSubscribe: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.Subscribe(ctx, a, chat.SubscribeRequest{})
		return err
	},
	chat.OpCreateUserGroup: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.CreateUserGroup(ctx, a, chat.NewUserGroup{})
		return err
	},
	chat.OpAddRealmEmoji: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.AddRealmEmoji(ctx, a, "x", strings.NewReader(""))
	},
	chat.OpSetDefaultChannel: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.SetDefaultChannel(ctx, a, 0, true)
	},
	chat.OpCreateBot: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.CreateBot(ctx, a, chat.NewBot{})
		return err
	},
	chat.OpBots: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.Bots(ctx, a)
		return err
	},
	chat.OpUpdateBot: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.UpdateBot(ctx, a, 0, chat.BotUpdate{})
		return err
	},
	chat.OpUpdateStatus: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateStatus(ctx, a, chat.StatusUpdate{})
	},
	chat.OpUpdateSettings: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateSettings(ctx, a, chat.SettingsUpdate{})
	},
	chat.OpUpdateProfileData: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateProfileData(ctx, a, nil)
	},
	chat.OpRegisterIOSDeviceToken: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.RegisterIOSDeviceToken(ctx, a, "", "")
	},
	chat.OpRegisterPushDevice: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.RegisterPushDevice(ctx, a, chat.PushRegistration{})
	},
	chat.OpSendTestNotification: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.SendTestNotification(ctx, a, nil)
	},
	chat.OpCreateUser: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.CreateUser(ctx, a, "", "", "")
		return err
	},
	chat.OpDeleteTopic: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.DeleteTopic(ctx, a, 0, "")
		return err
	},
	chat.OpCreateChannelFolder: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.CreateChannelFolder(ctx, a, "", "")
		return err
	},
	chat.OpUpdateChannelFolder: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateChannelFolder(ctx, a, 0, chat.FolderUpdate{})
	},
	chat.OpCreateProfileField: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.CreateProfileField(ctx, a, chat.NewProfileField{})
		return err
	},
	chat.OpUpdateRealm: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.UpdateRealm(ctx, a, chat.RealmUpdate{})
		return err
	},
	chat.OpUpdateUserSettingsDefaults: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateUserSettingsDefaults(ctx, a, nil)
	},
	chat.OpAddLinkifier: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.AddLinkifier(ctx, a, chat.LinkifierRequest{})
		return err
	},
	chat.OpUpdateLinkifier: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateLinkifier(ctx, a, 0, chat.LinkifierRequest{})
	},
	chat.OpDeleteLinkifier: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.DeleteLinkifier(ctx, a, 0)
	},
	chat.OpAddRealmDomain: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		_, err := svc.AddRealmDomain(ctx, a, "", false)
		return err
	},
	chat.OpUpdateRealmDomain: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.UpdateRealmDomain(ctx, a, "", false)
	},
	chat.OpDeleteRealmDomain: func(ctx context.Context, svc *chat.Service, a chat.Actor) error {
		return svc.DeleteRealmDomain(ctx, a, "")
	},
}

// wantAccess is the policy as the reference server's decorators state it,
// written apart from the table it checks.
var wantAccess = map[chat.Operation]chat.Access{
	chat.OpServerSettings: chat.Anyone, chat.OpAPIDescription: chat.Anyone, chat.OpFetchAPIKey: chat.Anyone,
	chat.OpFetchAPIKeyJWT: chat.Anyone, chat.OpOpenTemporaryUpload: chat.Anyone, chat.OpRealmEmojiImage: chat.Anyone,
	chat.OpSubscribe: chat.NonGuests, chat.OpCreateUserGroup: chat.NonGuests,
	chat.OpCreateBot: chat.NonGuests, chat.OpBots: chat.NonGuests, chat.OpUpdateBot: chat.NonGuests,
	chat.OpAddRealmEmoji: chat.NonGuests,
	chat.OpUpdateStatus:  chat.Humans, chat.OpUpdateSettings: chat.Humans, chat.OpUpdateProfileData: chat.Humans,
	chat.OpRegisterIOSDeviceToken: chat.Humans, chat.OpRegisterPushDevice: chat.Humans,
	chat.OpSendTestNotification: chat.Humans,
	chat.OpCreateUser:           chat.Administrators, chat.OpDeleteTopic: chat.Administrators,
	chat.OpCreateChannelFolder: chat.Administrators, chat.OpUpdateChannelFolder: chat.Administrators,
	chat.OpCreateProfileField: chat.Administrators, chat.OpUpdateRealm: chat.Administrators,
	chat.OpUpdateUserSettingsDefaults: chat.Administrators, chat.OpSetDefaultChannel: chat.Administrators, chat.OpAddLinkifier: chat.Administrators,
	chat.OpUpdateLinkifier: chat.Administrators, chat.OpDeleteLinkifier: chat.Administrators,
	chat.OpAddRealmDomain: chat.Owners, chat.OpUpdateRealmDomain: chat.Owners, chat.OpDeleteRealmDomain: chat.Owners,
}

// TestAccessPolicy checks the access level of every operation for every
// role, on every backend: Admit refuses exactly whom the level refuses,
// with its error, and the operation itself, called through the Go API,
// refuses the same callers with the same error.
func TestAccessPolicy(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		type caller struct {
			name string
			a    *account
		}
		callers := []caller{{"owner", f.owner}, {"administrator", f.admin}, {"moderator", f.moderator},
			{"member", f.member}, {"guest", f.guest}, {"bot", f.bot}}
		for _, op := range chat.Operations() {
			level, ok := wantAccess[op]
			if !ok {
				level = chat.AnyUser
			}
			if got := op.Access(); got != level {
				t.Errorf("%s: access %v, want %v", op, got, level)
			}
			call := gatedCalls[op]
			if level > chat.AnyUser && call == nil {
				t.Errorf("%s: no Go API call in gatedCalls", op)
			}
			for _, c := range callers {
				var want error
				switch {
				case level == chat.NonGuests && c.a.Role == chat.RoleGuest:
					want = chat.ErrNotAllowedForGuests
				case level == chat.Humans && c.a.BotType != chat.BotNone:
					want = chat.ErrBotsNotAllowed
				case level == chat.Administrators && c.a.Role != chat.RoleOwner && c.a.Role != chat.RoleAdmin:
					want = chat.ErrMustBeAdmin
				case level == chat.Owners && c.a.Role != chat.RoleOwner:
					want = chat.ErrMustBeOwner
				}
				actor := chat.AsUser(c.a.ID)
				admitErr := f.svc.Admit(ctx, actor, op)
				if !errors.Is(admitErr, want) || (want == nil && admitErr != nil) {
					t.Errorf("Admit(%s, %s) = %v, want %v", c.name, op, admitErr, want)
				}
				if call != nil && want != nil {
					if err := call(ctx, f.svc, actor); !errors.Is(err, want) {
						t.Errorf("%s as %s = %v, want %v", op, c.name, err, want)
					}
				}
			}
		}
		// Whatever the level, an unknown or deactivated actor is refused
		// as such, by Admit and by the operation.
		for op, call := range gatedCalls {
			wantErr(t, "unknown actor: "+string(op), f.svc.Admit(ctx, chat.AsUser(999999), op), chat.ErrNotLoggedIn)
			wantErr(t, "unknown actor: "+string(op), call(ctx, f.svc, chat.AsUser(999999)), chat.ErrNotLoggedIn)
			wantErr(t, "nobody: "+string(op), call(ctx, f.svc, chat.Actor{}), chat.ErrNotLoggedIn)
		}
		wantNoErr(t, "DeactivateUser", f.svc.DeactivateUser(ctx, chat.AsUser(f.owner.ID), f.admin.ID))
		wantErr(t, "deactivated admin", f.svc.Admit(ctx, chat.AsUser(f.admin.ID), chat.OpCreateUser), chat.ErrAccountDeactivated)
		wantNoErr(t, "DeactivateOrg", f.svc.DeactivateOrg(ctx, f.realm))
		wantErr(t, "deactivated organization", f.svc.Admit(ctx, chat.AsUser(f.owner.ID), chat.OpCreateUser), chat.ErrRealmDeactivated)
	})
}
