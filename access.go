package chat

import (
	"context"
	"fmt"

	"github.com/teamchat/chat/storage"
)

// This file is the access policy of the API: who may run each operation.
// Every operation consults it first, through admit, so the Go API and the
// HTTP server (which names the operation of each route and checks nothing
// of its own) share one rule. What an operation checks beyond its row here
// depends on its arguments (only the sender may edit a message, only an
// owner may change an owner's role, a channel's group settings), and is
// documented on the operation.

// Access says who may run an operation, before the operation's own rules.
// Every level but Anyone needs an active user of an active organization.
type Access int

const (
	// Anyone may run the operation, without credentials.
	Anyone Access = iota
	// AnyUser is any active user, bots included.
	AnyUser
	// NonGuests are the users who are not guests; bots pass.
	NonGuests
	// Humans are the users who are not bots.
	Humans
	// Administrators are the organization's administrators and owners.
	Administrators
	// Owners are the organization's owners.
	Owners
)

var accessNames = [...]string{"anyone", "any user", "non-guests", "humans", "administrators", "owners"}

// String returns the level's name, such as "administrators".
func (a Access) String() string {
	if a < 0 || int(a) >= len(accessNames) {
		return fmt.Sprintf("Access(%d)", int(a))
	}
	return accessNames[a]
}

// refusal is the error for an active user whom the level does not admit,
// or nil when it admits them.
func (a Access) refusal(u *storage.UserRecord) error {
	switch {
	case a == NonGuests && u.Role == RoleGuest:
		return ErrNotAllowedForGuests
	case a == Humans && u.IsBot():
		return ErrBotsNotAllowed
	case a == Administrators && !u.Role.IsAdmin():
		return ErrMustBeAdmin
	case a == Owners && u.Role != RoleOwner:
		return ErrMustBeOwner
	}
	return nil
}

// Operation names an operation of the API in the access policy. Its value
// is the name of the Service method that runs it.
type Operation string

// The operations of the API, grouped as the policy table below.
const (
	OpServerSettings      Operation = "ServerSettings"
	OpAPIDescription      Operation = "APIDescription"
	OpFetchAPIKey         Operation = "FetchAPIKey"
	OpFetchAPIKeyJWT      Operation = "FetchAPIKeyJWT"
	OpOpenTemporaryUpload Operation = "OpenTemporaryUpload"
	OpRealmEmojiImage     Operation = "OpenRealmEmojiImage"

	OpUsers                        Operation = "Users"
	OpUser                         Operation = "User"
	OpMe                           Operation = "Me"
	OpUpdateUser                   Operation = "UpdateUser"
	OpDeactivateUser               Operation = "DeactivateUser"
	OpReactivateUser               Operation = "ReactivateUser"
	OpRegister                     Operation = "Register"
	OpGetEvents                    Operation = "GetEvents"
	OpDeleteQueue                  Operation = "DeleteQueue"
	OpSetTyping                    Operation = "SetTyping"
	OpGetMessages                  Operation = "GetMessages"
	OpGetMessage                   Operation = "GetMessage"
	OpMatchesNarrow                Operation = "MatchesNarrow"
	OpRenderMessage                Operation = "RenderMessage"
	OpMessageHistory               Operation = "MessageHistory"
	OpSendMessage                  Operation = "SendMessage"
	OpEditMessage                  Operation = "EditMessage"
	OpDeleteMessage                Operation = "DeleteMessage"
	OpEditTyping                   Operation = "EditTyping"
	OpAddReaction                  Operation = "AddReaction"
	OpRemoveReaction               Operation = "RemoveReaction"
	OpReportMessage                Operation = "ReportMessage"
	OpProfileFields                Operation = "ProfileFields"
	OpSubscriptions                Operation = "Subscriptions"
	OpUnsubscribe                  Operation = "Unsubscribe"
	OpUpdateSubscriptionProperties Operation = "UpdateSubscriptionProperties"
	OpMuteTopic                    Operation = "MuteTopic"
	OpSetUserTopic                 Operation = "SetUserTopic"
	OpChannels                     Operation = "Channels"
	OpChannelByID                  Operation = "ChannelByID"
	OpChannelIDByName              Operation = "ChannelIDByName"
	OpChannelSubscribers           Operation = "ChannelSubscribers"
	OpIsSubscribed                 Operation = "IsSubscribed"
	OpChannelFolders               Operation = "ChannelFolders"
	OpUserGroups                   Operation = "UserGroups"
	OpLinkifiers                   Operation = "Linkifiers"
	OpRealmEmoji                   Operation = "RealmEmoji"
	OpRealmDomains                 Operation = "RealmDomains"
	OpCreateVideoCall              Operation = "CreateVideoCall"
	OpRegisterClientDevice         Operation = "RegisterClientDevice"
	OpRemoveClientDevice           Operation = "RemoveClientDevice"
	OpUploadFile                   Operation = "UploadFile"
	OpOpenAttachment               Operation = "OpenAttachment"
	OpTemporaryUploadURL           Operation = "TemporaryUploadURL"
	OpResumableUpload              Operation = "ResumableUpload"
	OpBotStorage                   Operation = "BotStorage"
	OpAttachments                  Operation = "Attachments"
	OpUpdateMessageFlags           Operation = "UpdateMessageFlags"
	OpUpdateMessageFlagsForNarrow  Operation = "UpdateMessageFlagsForNarrow"
	OpUpdatePresence               Operation = "UpdatePresence"
	OpRealmPresence                Operation = "RealmPresence"
	OpUserPresence                 Operation = "UserPresence"
	OpMarkAllAsRead                Operation = "MarkAllAsRead"
	OpMarkChannelAsRead            Operation = "MarkChannelAsRead"
	OpMarkTopicAsRead              Operation = "MarkTopicAsRead"
	OpTopics                       Operation = "Topics"
	OpDeleteAttachment             Operation = "DeleteAttachment"
	OpSetBotStorage                Operation = "SetBotStorage"
	OpDeleteBotStorage             Operation = "DeleteBotStorage"
	OpUpdateChannel                Operation = "UpdateChannel"
	OpArchiveChannel               Operation = "ArchiveChannel"
	OpUpdateUserGroup              Operation = "UpdateUserGroup"
	OpCreateUserGroup              Operation = "CreateUserGroup"
	OpCreateBot                    Operation = "CreateBot"
	OpAlertWords                   Operation = "AlertWords"
	OpAddRealmEmoji                Operation = "AddRealmEmoji"
	OpSetDefaultChannel            Operation = "SetDefaultChannel"
	OpDeactivateRealmEmoji         Operation = "DeactivateRealmEmoji"
	OpMuteUser                     Operation = "MuteUser"
	OpBots                         Operation = "Bots"
	OpUpdateBot                    Operation = "UpdateBot"

	OpSubscribe Operation = "Subscribe"

	OpUpdateStatus           Operation = "UpdateStatus"
	OpUpdateSettings         Operation = "UpdateSettings"
	OpUpdateProfileData      Operation = "UpdateProfileData"
	OpRegisterIOSDeviceToken Operation = "RegisterIOSDeviceToken"
	OpRegisterPushDevice     Operation = "RegisterPushDevice"
	OpSendTestNotification   Operation = "SendTestNotification"

	OpCreateUser                 Operation = "CreateUser"
	OpDeleteTopic                Operation = "DeleteTopic"
	OpCreateChannelFolder        Operation = "CreateChannelFolder"
	OpUpdateChannelFolder        Operation = "UpdateChannelFolder"
	OpCreateProfileField         Operation = "CreateProfileField"
	OpUpdateRealm                Operation = "UpdateRealm"
	OpUpdateUserSettingsDefaults Operation = "UpdateUserSettingsDefaults"
	OpAddLinkifier               Operation = "AddLinkifier"
	OpUpdateLinkifier            Operation = "UpdateLinkifier"
	OpDeleteLinkifier            Operation = "DeleteLinkifier"

	OpAddRealmDomain    Operation = "AddRealmDomain"
	OpUpdateRealmDomain Operation = "UpdateRealmDomain"
	OpDeleteRealmDomain Operation = "DeleteRealmDomain"
)

// policy is the access level of every operation. Operations missing from
// it are refused to everyone (see Operation.Access).
var policy = map[Operation]Access{
	// Before or without logging in.
	OpServerSettings: Anyone, OpAPIDescription: Anyone, OpFetchAPIKey: Anyone,
	OpFetchAPIKeyJWT: Anyone, OpOpenTemporaryUpload: Anyone, OpRealmEmojiImage: Anyone,

	// Any user; the operation's own rules decide the rest (the sender of a
	// message, an administrator for another user's account, the
	// organization's settings for channels and messages).
	OpUsers: AnyUser, OpUser: AnyUser, OpMe: AnyUser, OpUpdateUser: AnyUser,
	OpDeactivateUser: AnyUser, OpReactivateUser: AnyUser,
	OpRegister: AnyUser, OpGetEvents: AnyUser, OpDeleteQueue: AnyUser, OpSetTyping: AnyUser,
	OpGetMessages: AnyUser, OpGetMessage: AnyUser, OpMatchesNarrow: AnyUser, OpRenderMessage: AnyUser, OpMessageHistory: AnyUser,
	OpSendMessage: AnyUser, OpEditMessage: AnyUser, OpDeleteMessage: AnyUser,
	OpEditTyping: AnyUser, OpAddReaction: AnyUser, OpRemoveReaction: AnyUser,
	OpReportMessage: AnyUser, OpProfileFields: AnyUser, OpUpdateMessageFlags: AnyUser, OpUpdateMessageFlagsForNarrow: AnyUser,
	OpUpdatePresence: AnyUser, OpRealmPresence: AnyUser, OpUserPresence: AnyUser,
	OpMarkAllAsRead: AnyUser, OpMarkChannelAsRead: AnyUser, OpMarkTopicAsRead: AnyUser, OpTopics: AnyUser,
	OpSubscriptions: AnyUser, OpUnsubscribe: AnyUser, OpUpdateSubscriptionProperties: AnyUser,
	OpMuteTopic: AnyUser, OpSetUserTopic: AnyUser, OpChannels: AnyUser, OpChannelByID: AnyUser,
	OpChannelIDByName: AnyUser, OpChannelSubscribers: AnyUser, OpIsSubscribed: AnyUser,
	OpChannelFolders: AnyUser, OpUserGroups: AnyUser, OpLinkifiers: AnyUser,
	OpRealmEmoji:   AnyUser,
	OpRealmDomains: AnyUser, OpCreateVideoCall: AnyUser,
	OpRegisterClientDevice: AnyUser, OpRemoveClientDevice: AnyUser,
	OpUploadFile: AnyUser, OpOpenAttachment: AnyUser, OpTemporaryUploadURL: AnyUser,
	OpResumableUpload: AnyUser, OpAttachments: AnyUser, OpDeleteAttachment: AnyUser,
	OpBotStorage: AnyUser, OpSetBotStorage: AnyUser, OpDeleteBotStorage: AnyUser,
	OpUpdateChannel: AnyUser, OpArchiveChannel: AnyUser, OpUpdateUserGroup: AnyUser,
	OpAlertWords: AnyUser, OpMuteUser: AnyUser, OpDeactivateRealmEmoji: AnyUser,

	// Guests may not create channels or groups, or subscribe others.
	OpSubscribe: NonGuests, OpCreateUserGroup: NonGuests,
	OpCreateBot: NonGuests, OpBots: NonGuests, OpUpdateBot: NonGuests, OpAddRealmEmoji: NonGuests,

	// A person's own status, settings, profile and phones.
	OpUpdateStatus: Humans, OpUpdateSettings: Humans, OpUpdateProfileData: Humans,
	OpRegisterIOSDeviceToken: Humans, OpRegisterPushDevice: Humans, OpSendTestNotification: Humans,

	// The organization's administration.
	OpCreateUser: Administrators, OpDeleteTopic: Administrators,
	OpCreateChannelFolder: Administrators, OpUpdateChannelFolder: Administrators,
	OpCreateProfileField: Administrators, OpUpdateRealm: Administrators,
	OpUpdateUserSettingsDefaults: Administrators, OpSetDefaultChannel: Administrators,
	OpAddLinkifier: Administrators, OpUpdateLinkifier: Administrators, OpDeleteLinkifier: Administrators,

	// Who may join the organization.
	OpAddRealmDomain: Owners, OpUpdateRealmDomain: Owners, OpDeleteRealmDomain: Owners,
}

// Operations returns every operation of the policy, in no particular order.
func Operations() []Operation {
	ops := make([]Operation, 0, len(policy))
	for op := range policy {
		ops = append(ops, op)
	}
	return ops
}

// Access returns who may run op. An operation missing from the policy
// admits nobody: Owners, with an extra refusal in admit.
func (op Operation) Access() Access {
	if a, ok := policy[op]; ok {
		return a
	}
	return Owners
}

// Admit checks, in a transaction of its own, that actor may run op by the
// access policy. The operation checks the same itself; a server calls
// Admit before reading a request's parameters, so that those who may not
// run op learn nothing from parameter errors, as the reference server's
// decorators do. For operations any user may run it does nothing: the
// operation reads and checks the actor in its own transaction. Anyone may
// call it.
//
// Errors: ErrNotAllowedForGuests, ErrBotsNotAllowed, ErrMustBeAdmin,
// ErrMustBeOwner as the level says; ErrNotLoggedIn, ErrAccountDeactivated,
// ErrRealmDeactivated for an unknown or deactivated actor.
func (s *Service) Admit(ctx context.Context, actor Actor, op Operation) error {
	if op.Access() <= AnyUser {
		return nil
	}
	return s.view(ctx, actor, func(tx storage.Tx) error {
		_, _, err := s.admit(tx, actor, op)
		return err
	})
}

// admit reads the acting user and organization in tx, checks that both
// are active, and applies op's access level.
func (s *Service) admit(tx storage.Tx, actor Actor, op Operation) (storage.UserRecord, Realm, error) {
	u, r, err := s.actor(tx, actor)
	if err != nil {
		return storage.UserRecord{}, Realm{}, err
	}
	if _, ok := policy[op]; !ok {
		return storage.UserRecord{}, Realm{}, internal(fmt.Errorf("operation %q has no access policy", op))
	}
	if err := op.Access().refusal(&u); err != nil {
		return storage.UserRecord{}, Realm{}, err
	}
	return u, r, nil
}
