package chat

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/teamchat/chat/storage"
	"golang.org/x/crypto/nacl/secretbox"
)

// PushRelay sends notifications to mobile devices through a push relay
// (the reference server's "push bouncer"). The pushrelay package provides
// the HTTP client. Send returns nil when the relay accepted the
// notification, and otherwise an *Error with one of the codes
// ADMIN_ACTION_REQUIRED (the relay refused our credentials),
// FAILED_TO_CONNECT_BOUNCER (no answer) or INTERNAL_SERVER_ERROR_ON_BOUNCER
// (an error answer), made with RelayError.
type PushRelay interface {
	Send(ctx context.Context, n PushNotification) error
}

// PushNotification is one notification for some devices of one user. It
// is what a PushRelay sends; the relay reads nothing but the routing
// fields, the payload being encrypted for each device.
type PushNotification struct {
	RealmURL string       `json:"realm_url"`
	UserID   int64        `json:"user_id"`
	Devices  []DevicePush `json:"devices"`
}

// DevicePush is the notification for one device.
type DevicePush struct {
	DeviceID                  int64  `json:"device_id"`
	PushKeyID                 uint32 `json:"push_key_id"`
	TokenKind                 string `json:"token_kind"`
	TokenID                   string `json:"token_id"`
	BouncerPublicKey          string `json:"bouncer_public_key"`
	EncryptedPushRegistration string `json:"encrypted_push_registration"`
	// EncryptedData is base64 of a NaCl secretbox of the JSON payload under
	// the device's push key: the 24-byte nonce, then the sealed box.
	EncryptedData string `json:"encrypted_data"`
}

// Push errors.
var (
	ErrEmptyPushToken          = &Error{Code: CodeBadRequest, Msg: "Empty or invalid length token"}
	ErrInvalidPushToken        = &Error{Code: CodeBadRequest, Msg: "Invalid push token"}
	ErrInvalidAppID            = &Error{Code: CodeBadRequest, Msg: "appid has invalid format"}
	ErrNoActivePushDevice      = &Error{Code: CodeNoActivePushDevice, Msg: "No active registered push device"}
	ErrPushAdminActionRequired = &Error{Code: CodeAdminActionRequired, Msg: "Push notification configuration issue on server, contact the server administrator or retry later."}
	ErrPushFailedToConnect     = &Error{Code: CodeFailedToConnectBouncer, Msg: "Network error while connecting to the push notification service."}
	ErrPushRelayServerError    = &Error{Code: CodeInternalServerErrorOnBouncer, Msg: "Internal server error on the push notification service, retry later."}
	ErrPushNotConfigured       = &Error{Code: CodePushServiceNotConfigured, Msg: "Server is not configured to use push notification service."}
	ErrInvalidDeviceID         = &Error{Code: CodeBadRequest, Msg: "Invalid `device_id`"}
	ErrInvalidPushKey          = &Error{Code: CodeBadRequest, Msg: "Invalid `push_key`"}
	ErrTokenIDNotBase64        = &Error{Code: CodeBadRequest, Msg: "`token_id` is not Base64 encoded"}
	ErrInvalidTokenKind        = &Error{Code: CodeBadRequest, Msg: "Invalid token_kind"}
	ErrPushParamsIncomplete    = &Error{Code: CodeBadRequest, Msg: "Missing parameters: must provide either all push key fields, all token fields, or both."}
	ErrNoRegistrationForKey    = &Error{Code: CodeBadRequest, Msg: "No push registration exists to rotate key for."}
	ErrNoRegistrationForToken  = &Error{Code: CodeBadRequest, Msg: "No push registration exists to rotate token for."}
)

// RelayError returns the relay failure sentinel (ErrPushAdminActionRequired,
// ErrPushFailedToConnect or ErrPushRelayServerError) with its cause, for
// PushRelay implementations.
func RelayError(sentinel *Error, cause error) *Error {
	e := *sentinel
	e.Err = cause
	return &e
}

// maxPushTokenLength bounds a push token.
const maxPushTokenLength = 4096

var appIDPattern = regexp.MustCompile(`^[.a-zA-Z0-9-]+$`)

// parseHexToken decodes a token as Python's bytes.fromhex does: pairs of
// hex digits, any case, with ASCII whitespace allowed between pairs.
func parseHexToken(token string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(token); {
		switch token[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			i++
			continue
		}
		if i+1 >= len(token) {
			return "", false
		}
		if _, err := hex.DecodeString(token[i : i+2]); err != nil {
			return "", false
		}
		b.WriteString(strings.ToLower(token[i : i+2]))
		i += 2
	}
	return b.String(), true
}

// RegisterIOSDeviceToken registers an APNs device token for the actor's
// legacy (not end-to-end-encrypted) push notifications. Registering a token
// again is a silent success. Humans only.
//
// Errors: ErrBotsNotAllowed; ErrInvalidAppID when appID is not made of
// letters, digits, "." and "-"; ErrEmptyPushToken for an empty token or one
// longer than 4096 characters; ErrInvalidPushToken when the token is not
// hex; the actor errors.
func (s *Service) RegisterIOSDeviceToken(ctx context.Context, actor Actor, token, appID string) error {
	return s.update(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpRegisterIOSDeviceToken)
		if err != nil {
			return err
		}
		if !appIDPattern.MatchString(appID) {
			return ErrInvalidAppID
		}
		if token == "" || len(token) > maxPushTokenLength {
			return ErrEmptyPushToken
		}
		normal, ok := parseHexToken(token)
		if !ok || normal == "" {
			return ErrInvalidPushToken
		}
		err = tx.AddPushToken(storage.PushToken{UserID: u.ID, Kind: "apns", Token: normal, AppID: appID, CreateTime: s.now()})
		if errors.Is(err, storage.ErrExists) {
			return nil
		}
		return err
	})
}

// RegisterClientDevice creates a device of the actor, not yet registered
// for push, and returns its ID; the actor receives a device/add event.
//
// Errors: the actor errors.
func (s *Service) RegisterClientDevice(ctx context.Context, actor Actor) (int64, error) {
	var d storage.Device
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, _, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		d = storage.Device{UserID: u.ID, RealmID: u.RealmID, CreateTime: s.now()}
		if err := tx.CreateDevice(&d); err != nil {
			return err
		}
		emit(Event{RealmID: u.RealmID, UserIDs: []int64{u.ID},
			Payload: map[string]any{"type": "device", "op": "add", "device_id": d.ID}})
		return nil
	})
	return d.ID, err
}

// ownDevice returns the actor's device with the ID.
func ownDevice(tx storage.Tx, u *storage.UserRecord, id int64) (storage.Device, error) {
	d, err := tx.Device(id)
	if errors.Is(err, storage.ErrNotFound) || err == nil && d.UserID != u.ID {
		return storage.Device{}, ErrInvalidDeviceID
	}
	return d, err
}

// RemoveClientDevice deletes one of the actor's devices; the actor receives
// a device/remove event.
//
// Errors: ErrInvalidDeviceID when the actor has no device with the ID; the
// actor errors.
func (s *Service) RemoveClientDevice(ctx context.Context, actor Actor, deviceID int64) error {
	return s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, _, err := s.actor(tx, actor)
		if err != nil {
			return err
		}
		if _, err := ownDevice(tx, &u, deviceID); err != nil {
			return err
		}
		if err := tx.DeleteDevice(deviceID); err != nil {
			return err
		}
		emit(Event{RealmID: u.RealmID, UserIDs: []int64{u.ID},
			Payload: map[string]any{"type": "device", "op": "remove", "device_id": deviceID}})
		return nil
	})
}

// PushRegistration is a request of POST /mobile_push/register: the push-key
// group (PushKey, PushKeyID), the token group (TokenKind, TokenID,
// BouncerPublicKey, EncryptedPushRegistration), or both. Nil fields were
// not sent.
type PushRegistration struct {
	DeviceID int64
	// PushKey is base64 of the 33-byte key.
	PushKey                   *string
	PushKeyID                 *uint32
	TokenKind                 *string
	TokenID                   *string
	BouncerPublicKey          *string
	EncryptedPushRegistration *string
}

// RegisterPushDevice registers one of the actor's devices for
// end-to-end-encrypted push, or rotates its key or token. Registration completes at once: the relay learns the token from
// the encrypted registration that goes with each notification. An
// identical repeat is a silent success. Humans only.
//
// Errors: ErrBotsNotAllowed; ErrPushNotConfigured without a PushRelay;
// ErrInvalidDeviceID; ErrInvalidPushKey; ErrInvalidTokenKind;
// ErrTokenIDNotBase64; ErrPushParamsIncomplete when neither group is
// complete; ErrNoRegistrationForKey / ErrNoRegistrationForToken when one
// group rotates a registration that does not exist; the actor errors.
func (s *Service) RegisterPushDevice(ctx context.Context, actor Actor, req PushRegistration) error {
	return s.update(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpRegisterPushDevice)
		if err != nil {
			return err
		}
		if s.cfg.PushRelay == nil {
			return ErrPushNotConfigured
		}
		d, err := ownDevice(tx, &u, req.DeviceID)
		if err != nil {
			return err
		}
		keyGroup := req.PushKey != nil && req.PushKeyID != nil
		tokenGroup := req.TokenKind != nil && req.TokenID != nil && req.BouncerPublicKey != nil &&
			req.EncryptedPushRegistration != nil
		var key []byte
		if req.PushKey != nil {
			key, err = base64.StdEncoding.DecodeString(*req.PushKey)
			if err != nil || len(key) != storage.PushKeySize || key[0] != 0x31 {
				return ErrInvalidPushKey
			}
		}
		if req.TokenKind != nil && *req.TokenKind != "fcm" && *req.TokenKind != "apns" {
			return ErrInvalidTokenKind
		}
		if req.TokenID != nil {
			if raw, err := base64.StdEncoding.DecodeString(*req.TokenID); err != nil || len(raw) == 0 {
				return ErrTokenIDNotBase64
			}
		}
		switch {
		case !keyGroup && !tokenGroup:
			return ErrPushParamsIncomplete
		case keyGroup && !tokenGroup && !d.Registered():
			return ErrNoRegistrationForKey
		case tokenGroup && !keyGroup && !d.Registered():
			return ErrNoRegistrationForToken
		}
		if keyGroup {
			d.PushKey, d.PushKeyID = key, *req.PushKeyID
		}
		if tokenGroup {
			d.TokenKind, d.TokenID = *req.TokenKind, *req.TokenID
			d.BouncerPublicKey, d.EncryptedPushRegistration = *req.BouncerPublicKey, *req.EncryptedPushRegistration
		}
		return tx.UpdateDevice(d)
	})
}

// SendTestNotification sends a test notification to the actor's devices
// registered for push (only the one with deviceID when it is not nil),
// encrypted for each device with its push key, through the push relay.
// Humans only. The payload is the JSON object {"event": "test",
// "realm_id", "realm_name", "realm_url", "user_id", "time"}.
//
// Errors: ErrBotsNotAllowed; ErrNoActivePushDevice when no registered
// device matches (an unknown or foreign deviceID included);
// ErrPushNotConfigured without a PushRelay; the relay failures
// ErrPushAdminActionRequired, ErrPushFailedToConnect,
// ErrPushRelayServerError; the actor errors.
func (s *Service) SendTestNotification(ctx context.Context, actor Actor, deviceID *int64) error {
	var (
		n       PushNotification
		payload []byte
	)
	var keys [][]byte
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, realm, err := s.admit(tx, actor, OpSendTestNotification)
		if err != nil {
			return err
		}
		devices, err := tx.Devices(u.ID)
		if err != nil {
			return err
		}
		n = PushNotification{RealmURL: realm.URL, UserID: u.ID}
		for _, d := range devices {
			if !d.Registered() || deviceID != nil && d.ID != *deviceID {
				continue
			}
			n.Devices = append(n.Devices, DevicePush{
				DeviceID: d.ID, PushKeyID: d.PushKeyID, TokenKind: d.TokenKind, TokenID: d.TokenID,
				BouncerPublicKey: d.BouncerPublicKey, EncryptedPushRegistration: d.EncryptedPushRegistration,
			})
			keys = append(keys, d.PushKey)
		}
		if len(n.Devices) == 0 {
			return ErrNoActivePushDevice
		}
		payload, err = json.Marshal(map[string]any{
			"event": "test", "realm_id": realm.ID, "realm_name": realm.Name, "realm_url": realm.URL,
			"user_id": u.ID, "time": s.now().Unix(),
		})
		return err
	})
	if err != nil {
		return err
	}
	if s.cfg.PushRelay == nil {
		return ErrPushNotConfigured
	}
	for i := range n.Devices {
		box, err := sealPush(keys[i], payload)
		if err != nil {
			return internal(err)
		}
		n.Devices[i].EncryptedData = box
	}
	err = s.cfg.PushRelay.Send(ctx, n)
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return err
	default:
		return RelayError(ErrPushFailedToConnect, err)
	}
}

// sealPush encrypts payload with a 33-byte push key: base64 of the random
// nonce followed by the secretbox.
func sealPush(key, payload []byte) (string, error) {
	if len(key) != storage.PushKeySize || key[0] != 0x31 {
		return "", fmt.Errorf("push key of %d bytes with marker %#x", len(key), key[0])
	}
	var k [32]byte
	copy(k[:], key[1:])
	var nonce [24]byte
	rand.Read(nonce[:]) // never fails
	return base64.StdEncoding.EncodeToString(secretbox.Seal(nonce[:], payload, &nonce, &k)), nil
}
