package chat

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/teamchat/chat/storage"
)

// Errors of bot administration, with the reference's texts.
var (
	ErrNoSuchBot       = errorf("No such bot")
	ErrBadBotUsername  = errorf("Bad name or username")
	ErrBotUsernameUsed = errorf("Username already in use")
	ErrBotNameUsed     = errorf("Name is already in use!")
	ErrInvalidBotType  = errorf("Invalid bot type")
	ErrEmbeddedBots    = errorf("Embedded bots are not enabled.")
)

// shortNamePattern is what the reference accepts as a bot's short name:
// the local part of its address before "-bot".
var shortNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// NewBot is a request to POST /bots.
type NewBot struct {
	FullName  string
	ShortName string
	// BotType is BotGeneric (the default, for zero), BotIncomingWebhook or
	// BotOutgoingWebhook.
	BotType BotType
	// PayloadURL is where an outgoing-webhook bot receives the messages
	// that trigger it; InterfaceType its payload format (InterfaceZulip,
	// the default).
	PayloadURL    string
	InterfaceType int
}

// BotCreated is the answer of POST /bots.
type BotCreated struct {
	UserID                      int64   `json:"user_id"`
	APIKey                      string  `json:"api_key"`
	AvatarURL                   string  `json:"avatar_url"`
	DefaultSendingStream        *string `json:"default_sending_stream"`
	DefaultEventsRegisterStream *string `json:"default_events_register_stream"`
	DefaultAllPublicStreams     bool    `json:"default_all_public_streams"`
}

// BotView is a bot as GET /bots lists it to its owner.
type BotView struct {
	UserID                      int64   `json:"user_id"`
	Username                    string  `json:"username"`
	FullName                    string  `json:"full_name"`
	APIKey                      string  `json:"api_key"`
	AvatarURL                   string  `json:"avatar_url"`
	BotType                     BotType `json:"bot_type"`
	DefaultSendingStream        *string `json:"default_sending_stream"`
	DefaultEventsRegisterStream *string `json:"default_events_register_stream"`
	DefaultAllPublicStreams     bool    `json:"default_all_public_streams"`
}

// realmBot is a bot as realm_bot events carry it.
func (s *Service) realmBot(u *storage.UserRecord) (map[string]any, error) {
	key, err := s.shownAPIKey(u.APIKey)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_id": u.ID, "full_name": u.FullName, "email": u.Email, "api_key": key,
		"avatar_url": gravatarURL(u.Email, u.AvatarVersion), "bot_type": u.BotType, "owner_id": u.BotOwnerID,
		"is_active": u.IsActive, "default_sending_stream": nil, "default_events_register_stream": nil,
		"default_all_public_streams": false, "services": []any{}}, nil
}

// emitRealmBot tells the bot's owner and the organization's administrators
// of a change with a realm_bot event.
func emitRealmBot(tx storage.Tx, emit func(Event), realmID int64, bot *storage.UserRecord, op string, payload map[string]any) error {
	admins, err := tx.Users(realmID, nil)
	if err != nil {
		return err
	}
	var to []int64
	for i := range admins {
		u := &admins[i]
		if u.IsActive && (u.ID == bot.BotOwnerID || (u.Role.IsAdmin() && !u.IsBot())) {
			to = append(to, u.ID)
		}
	}
	payload["type"], payload["op"] = "realm_bot", op
	emit(Event{RealmID: realmID, UserIDs: to, Payload: payload})
	return nil
}

// CreateBot creates a bot owned by the actor (POST /bots): its address is
// "{short_name}-bot@{domain}", it has an API key and no password, and
// everybody learns of it with realm_user add, its owner and the
// administrators with realm_bot add. Users who are not guests may create
// generic, incoming-webhook and (where the server allows them)
// outgoing-webhook bots.
//
// Errors: ErrNotAllowedForGuests; ErrInvalidBotType, ErrEmbeddedBots;
// for outgoing webhooks ErrOutgoingWebhooksDisabled, "payload_url is not a
// URL", "Invalid interface type"; ErrBadBotUsername; the full-name errors
// of CreateUser; ErrBotNameUsed; ErrBotUsernameUsed.
func (s *Service) CreateBot(ctx context.Context, actor Actor, req NewBot) (BotCreated, error) {
	var out BotCreated
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		owner, realm, err := s.admit(tx, actor, OpCreateBot)
		if err != nil {
			return err
		}
		switch req.BotType {
		case BotNone:
			req.BotType = BotGeneric
		case BotGeneric, BotIncomingWebhook:
		case BotOutgoingWebhook:
			if s.cfg.OutgoingWebhookClient == nil {
				return ErrOutgoingWebhooksDisabled
			}
			if err := checkPayloadURL(req.PayloadURL); err != nil {
				return err
			}
			if req.InterfaceType == 0 {
				req.InterfaceType = InterfaceZulip
			}
			if req.InterfaceType != InterfaceZulip {
				return errorf("Invalid interface type")
			}
		case BotEmbedded:
			return ErrEmbeddedBots
		default:
			return ErrInvalidBotType
		}
		short := strings.TrimSpace(req.ShortName)
		if !shortNamePattern.MatchString(short) {
			return ErrBadBotUsername
		}
		name, err := checkFullName(req.FullName)
		if err != nil {
			return err
		}
		if err := checkBotNameFree(tx, realm.ID, name, 0); err != nil {
			return err
		}
		email := strings.ToLower(short) + "-bot@" + s.emailDomain(realm)
		if !validEmail(email) {
			return ErrBadBotUsername
		}
		u, err := s.provisionUser(tx, realm, NewUser{Email: email, FullName: name, BotType: req.BotType, BotOwnerID: owner.ID}, false)
		if errors.Is(err, ErrEmailInUse) {
			return ErrBotUsernameUsed
		}
		if err != nil {
			return err
		}
		bot, err := s.realmBot(&u)
		if err != nil {
			return err
		}
		out = BotCreated{UserID: u.ID, APIKey: bot["api_key"].(string), AvatarURL: gravatarURL(u.Email, u.AvatarVersion)}
		if req.BotType == BotOutgoingWebhook {
			token, err := s.newAPIKey()
			if err != nil {
				return err
			}
			// The token is sealed as API keys are: the bot's server trusts
			// whoever holds it.
			sv := storage.BotService{BotID: u.ID, RealmID: realm.ID, PayloadURL: req.PayloadURL,
				Token: s.storedAPIKey(token), Interface: req.InterfaceType}
			if err := tx.SetBotService(sv); err != nil {
				return err
			}
			bot["services"] = []any{map[string]any{"base_url": sv.PayloadURL, "interface": sv.Interface, "token": token}}
		}
		if err := s.emitUserAdded(tx, emit, realm, &u); err != nil {
			return err
		}
		return emitRealmBot(tx, emit, realm.ID, &u, "add", map[string]any{"bot": bot})
	})
	return out, err
}

// checkBotNameFree refuses a bot name that another active bot of the realm
// has, as the reference does.
func checkBotNameFree(tx storage.Tx, realmID int64, name string, self int64) error {
	users, err := tx.Users(realmID, nil)
	if err != nil {
		return err
	}
	for _, u := range users {
		if u.IsBot() && u.IsActive && u.ID != self && strings.EqualFold(u.FullName, name) {
			return ErrBotNameUsed
		}
	}
	return nil
}

// Bots lists the actor's active bots (GET /bots), oldest first, with their
// API keys. Users who are not guests may call it.
//
// Errors: ErrNotAllowedForGuests; those of the actor check.
func (s *Service) Bots(ctx context.Context, actor Actor) ([]BotView, error) {
	out := []BotView{}
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		owner, _, err := s.admit(tx, actor, OpBots)
		if err != nil {
			return err
		}
		bots, err := storage.BotsOwnedBy(tx, owner.ID)
		if err != nil {
			return err
		}
		slices.SortStableFunc(bots, func(a, b storage.UserRecord) int { return a.DateJoined.Compare(b.DateJoined) })
		for _, b := range bots {
			if b.IsActive {
				key, err := s.shownAPIKey(b.APIKey)
				if err != nil {
					return err
				}
				out = append(out, BotView{UserID: b.ID, Username: b.Email, FullName: b.FullName, APIKey: key,
					AvatarURL: gravatarURL(b.Email, b.AvatarVersion), BotType: b.BotType})
			}
		}
		return nil
	})
	return out, err
}

// BotUpdate is a request to PATCH /bots/{bot_id}: nil fields stay.
type BotUpdate struct {
	FullName *string
	// OwnerID gives the bot to another active human of the organization.
	OwnerID *int64
}

// ownedBot reads a bot that the actor may administer: its owner's, or any
// for the organization's administrators.
func ownedBot(tx storage.Tx, actor *storage.UserRecord, realmID, botID int64) (storage.UserRecord, error) {
	b, err := tx.User(botID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (b.RealmID != realmID || !b.IsBot())) {
		return storage.UserRecord{}, ErrNoSuchBot
	}
	if err != nil {
		return storage.UserRecord{}, err
	}
	if b.BotOwnerID != actor.ID && !actor.Role.IsAdmin() {
		return storage.UserRecord{}, ErrInsufficientPermission
	}
	return b, nil
}

// changeBot runs change in a write transaction on a bot that the actor
// may administer.
func (s *Service) changeBot(ctx context.Context, actor Actor, botID int64,
	change func(tx storage.Tx, emit func(Event), realm Realm, b storage.UserRecord) error) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		owner, realm, err := s.admit(tx, actor, OpUpdateBot)
		if err != nil {
			return err
		}
		b, err := ownedBot(tx, &owner, realm.ID, botID)
		if err != nil {
			return err
		}
		return change(tx, emit, realm, b)
	})
}

// UpdateBot renames a bot or gives it another owner (PATCH
// /bots/{bot_id}), with realm_user and realm_bot update events. The bot's
// owner and the organization's administrators may.
//
// Errors: ErrNoSuchBot; ErrInsufficientPermission; the full-name errors of
// CreateUser; ErrBotNameUsed; "Failed to change owner, no such user" for
// an owner who is not an active human of the organization.
func (s *Service) UpdateBot(ctx context.Context, actor Actor, botID int64, req BotUpdate) (BotView, error) {
	var out BotView
	err := s.changeBot(ctx, actor, botID, func(tx storage.Tx, emit func(Event), realm Realm, b storage.UserRecord) error {
		changed := map[string]any{}
		if req.FullName != nil {
			name, err := checkFullName(*req.FullName)
			if err != nil {
				return err
			}
			if name != b.FullName {
				if err := checkBotNameFree(tx, realm.ID, name, b.ID); err != nil {
					return err
				}
				b.FullName, changed["full_name"] = name, name
			}
		}
		if req.OwnerID != nil && *req.OwnerID != b.BotOwnerID {
			o, err := tx.User(*req.OwnerID)
			if err != nil || o.RealmID != realm.ID || !o.IsActive || o.IsBot() {
				if err != nil && !errors.Is(err, storage.ErrNotFound) {
					return err
				}
				return errorf("Failed to change owner, no such user")
			}
			b.BotOwnerID, changed["owner_id"] = o.ID, o.ID
		}
		key, err := s.shownAPIKey(b.APIKey)
		if err != nil {
			return err
		}
		out = BotView{UserID: b.ID, Username: b.Email, FullName: b.FullName, APIKey: key,
			AvatarURL: gravatarURL(b.Email, b.AvatarVersion), BotType: b.BotType}
		if len(changed) == 0 {
			return nil
		}
		if err := tx.UpdateUser(b); err != nil {
			return err
		}
		person := map[string]any{"user_id": b.ID}
		bot := map[string]any{"user_id": b.ID}
		for k, v := range changed {
			person[k], bot[k] = v, v
		}
		if name, ok := changed["full_name"]; ok {
			emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
				"type": "realm_user", "op": "update", "person": map[string]any{"user_id": b.ID, "full_name": name}}})
		}
		return emitRealmBot(tx, emit, realm.ID, &b, "update", map[string]any{"bot": bot})
	})
	return out, err
}

// DeactivateBot deactivates a bot (DELETE /bots/{bot_id}); its queues are
// freed. The bot's owner and the organization's administrators may.
//
// Errors: ErrNoSuchBot; ErrInsufficientPermission; ErrUserDeactivated.
func (s *Service) DeactivateBot(ctx context.Context, actor Actor, botID int64) error {
	err := s.changeBot(ctx, actor, botID, func(tx storage.Tx, emit func(Event), realm Realm, b storage.UserRecord) error {
		if !b.IsActive {
			return ErrUserDeactivated
		}
		b.IsActive = false
		if err := tx.UpdateUser(b); err != nil {
			return err
		}
		if err := emitActiveChange(tx, emit, realm.ID, b.ID, false); err != nil {
			return err
		}
		return emitRealmBot(tx, emit, realm.ID, &b, "remove", map[string]any{
			"bot": map[string]any{"user_id": b.ID, "full_name": b.FullName, "is_active": false}})
	})
	if err == nil {
		s.hub.DropUserQueues(botID)
	}
	return err
}

// RegenerateBotAPIKey gives a bot a new API key (POST
// /bots/{bot_id}/api_key/regenerate) and returns it; the old one stops
// working at once. The bot's owner and the organization's administrators
// may.
//
// Errors: ErrNoSuchBot; ErrInsufficientPermission.
func (s *Service) RegenerateBotAPIKey(ctx context.Context, actor Actor, botID int64) (string, error) {
	var key string
	err := s.changeBot(ctx, actor, botID, func(tx storage.Tx, emit func(Event), realm Realm, b storage.UserRecord) error {
		newKey, stored, err := s.newStoredAPIKey()
		if err != nil {
			return err
		}
		b.APIKey, key = stored, newKey
		if err := tx.UpdateUser(b); err != nil {
			return err
		}
		return emitRealmBot(tx, emit, realm.ID, &b, "update", map[string]any{
			"bot": map[string]any{"user_id": b.ID, "api_key": newKey}})
	})
	return key, err
}
