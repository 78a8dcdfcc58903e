package storage

import "time"

// PushToken is a device token Registered through the legacy
// POST /users/me/ios_device_token route.
type PushToken struct {
	UserID int64
	// Kind is "apns" for the iOS route.
	Kind string
	// Token is the token as lower-case hex without whitespace.
	Token      string
	AppID      string
	CreateTime time.Time
}

// Device is a client device Registered for end-to-end-encrypted push
// (POST /register_client_device, POST /mobile_push/register).
type Device struct {
	ID      int64
	UserID  int64
	RealmID int64
	// PushKey is the 33-byte key that notifications to the device are
	// encrypted with: the byte 0x31 (NaCl secretbox) and a 32-byte key.
	// Nil until Registered.
	PushKey   []byte
	PushKeyID uint32
	// TokenKind ("fcm" or "apns") and TokenID (base64 of the first 8 bytes
	// of SHA-256 of the token) identify the device at the push relay; the
	// relay learns the token itself from EncryptedPushRegistration, which is
	// encrypted to BouncerPublicKey. Empty until Registered.
	TokenKind                 string
	TokenID                   string
	BouncerPublicKey          string
	EncryptedPushRegistration string
	CreateTime                time.Time
}

// Registered reports whether the device completed push registration: it
// has a key to encrypt with and a token to send to.
func (d *Device) Registered() bool { return d.TokenID != "" && len(d.PushKey) == PushKeySize }

// PushTx stores push tokens and client devices.
type PushTx interface {
	// AddPushToken stores t. It returns ErrExists when the user already has
	// a token of the same Kind and Token.
	AddPushToken(t PushToken) error
	// PushTokens returns the user's tokens, oldest first.
	PushTokens(userID int64) ([]PushToken, error)
	// CreateDevice stores d under a new ID and sets d.ID.
	CreateDevice(d *Device) error
	// Device returns the device with the ID, or ErrNotFound.
	Device(id int64) (Device, error)
	// Devices returns the user's devices ordered by ID.
	Devices(userID int64) ([]Device, error)
	// UpdateDevice replaces the stored device with d.ID, or returns
	// ErrNotFound.
	UpdateDevice(d Device) error
	// DeleteDevice removes the device with the ID, or returns ErrNotFound.
	DeleteDevice(id int64) error
}

// PushKeySize is the length of a push key: the 0x31 marker of NaCl
// secretbox and the 32-byte key.
const PushKeySize = 1 + 32
