package chat

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/teamchat/chat/storage"
)

// The reference API shows a user's existing API key again (POST
// /fetch_api_key, the JWT login, GET /bots), so a key cannot be kept as a
// one-way hash: every second login would have to replace it and cut off
// the user's other clients. Keys are instead sealed under
// Config.APIKeySecret, which lives outside the database: a copy of the
// database alone yields no key that authenticates, and the service can
// still open a key to show it.
//
// The seal is deterministic (AES-256-GCM with a synthetic nonce, the HMAC
// of the key), so that a presented key is sealed and looked up as it is
// stored, without opening every candidate. Equal keys giving equal seals
// reveals nothing: keys are 190 random bits, unique per user.

// sealedAPIKeyPrefix starts every sealed key; what follows is the
// secret's ID, a dollar sign and the nonce, ciphertext and tag in
// unpadded base64url. A stored key without the prefix is a key stored
// readable, before the secret was set.
const sealedAPIKeyPrefix = "k1$"

// ErrAPIKeySecretMismatch reports API keys sealed under another secret
// than Config.APIKeySecret; SealAPIKeys returns it.
var ErrAPIKeySecretMismatch = errors.New("API keys in the store are sealed under another secret; give every process of one database the same API key secret")

// apiKeySealer seals and opens API keys under one secret.
type apiKeySealer struct {
	aead   cipher.AEAD
	macKey []byte
	// id names the secret, so that a key sealed under another one is
	// told apart from a damaged one.
	id string
}

// newAPIKeySealer derives the sealer's keys from secret; nil secret gives
// a nil sealer, which stores keys readable.
func newAPIKeySealer(secret []byte) *apiKeySealer {
	if len(secret) == 0 {
		return nil
	}
	derive := func(info string, n int) []byte {
		k, err := hkdf.Key(sha256.New, secret, nil, "teamchat api key "+info, n)
		if err != nil {
			panic(err) // only for lengths beyond 255 hashes
		}
		return k
	}
	block, err := aes.NewCipher(derive("encryption", 32))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return &apiKeySealer{aead: aead, macKey: derive("nonce", 32), id: hex.EncodeToString(derive("id", 4))}
}

// seal returns key's stored form.
func (k *apiKeySealer) seal(key string) string {
	mac := hmac.New(sha256.New, k.macKey)
	mac.Write([]byte(key))
	nonce := mac.Sum(nil)[:k.aead.NonceSize()]
	out := k.aead.Seal(nonce, nonce, []byte(key), []byte(k.id))
	return sealedAPIKeyPrefix + k.id + "$" + base64.RawURLEncoding.EncodeToString(out)
}

// open returns the key that stored seals; ErrAPIKeySecretMismatch when
// another secret sealed it.
func (k *apiKeySealer) open(stored string) (string, error) {
	id, body, ok := strings.Cut(strings.TrimPrefix(stored, sealedAPIKeyPrefix), "$")
	if !ok {
		return "", errors.New("malformed sealed API key")
	}
	if id != k.id {
		return "", ErrAPIKeySecretMismatch
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(raw) < k.aead.NonceSize() {
		return "", errors.New("malformed sealed API key")
	}
	key, err := k.aead.Open(nil, raw[:k.aead.NonceSize()], raw[k.aead.NonceSize():], []byte(id))
	if err != nil {
		return "", fmt.Errorf("opening a sealed API key: %w", err)
	}
	return string(key), nil
}

// isSealedAPIKey reports whether a stored key is sealed.
func isSealedAPIKey(stored string) bool { return strings.HasPrefix(stored, sealedAPIKeyPrefix) }

// storedAPIKey is the form in which the store keeps key, and in which
// UserByAPIKey finds it.
func (s *Service) storedAPIKey(key string) string {
	if s.apiKeys == nil {
		return key
	}
	return s.apiKeys.seal(key)
}

// shownAPIKey is the key that a stored key holds, for the answers that
// show it. A key sealed under another secret cannot be shown: the error
// says so, and the request fails as an internal error.
func (s *Service) shownAPIKey(stored string) (string, error) {
	if !isSealedAPIKey(stored) {
		return stored, nil
	}
	if s.apiKeys == nil {
		return "", fmt.Errorf("%w (none is configured)", ErrAPIKeySecretMismatch)
	}
	return s.apiKeys.open(stored)
}

// apiKeyMatches reports, in constant time, whether key is the one stored.
func (s *Service) apiKeyMatches(stored, key string) bool {
	want := key
	if isSealedAPIKey(stored) {
		if s.apiKeys == nil {
			return false
		}
		want = s.apiKeys.seal(key)
	}
	return subtle.ConstantTimeCompare([]byte(stored), []byte(want)) == 1
}

// storedKeyMatches is apiKeyMatches with the stored form of key that
// storedAPIKey gave for it before, so that it is not sealed again.
func (s *Service) storedKeyMatches(stored, key, storedKey string) bool {
	if !isSealedAPIKey(stored) || !isSealedAPIKey(storedKey) {
		return s.apiKeyMatches(stored, key)
	}
	return subtle.ConstantTimeCompare([]byte(stored), []byte(storedKey)) == 1
}

// userByAPIKey finds the user whose key is key, in either stored form.
func (s *Service) userByAPIKey(tx storage.Tx, key string) (storage.UserRecord, error) {
	u, err := tx.UserByAPIKey(s.storedAPIKey(key))
	if errors.Is(err, storage.ErrNotFound) && s.apiKeys != nil {
		return tx.UserByAPIKey(key) // stored readable, not sealed yet
	}
	return u, err
}

// newStoredAPIKey draws a new API key and returns it and its stored form.
func (s *Service) newStoredAPIKey() (key, stored string, err error) {
	if key, err = s.newAPIKey(); err != nil {
		return "", "", err
	}
	return key, s.storedAPIKey(key), nil
}

// SealAPIKeys seals every API key and outgoing-webhook token the store
// still holds readable (stored before Config.APIKeySecret was set), one
// organization per transaction, and returns how many it sealed. Without a secret it does nothing. A
// server calls it when it starts; the keys keep working throughout.
//
// Errors: ErrAPIKeySecretMismatch when the store holds keys sealed under
// another secret (the other processes of the database have another one);
// nothing is changed in that organization.
func (s *Service) SealAPIKeys(ctx context.Context) (int, error) {
	if s.apiKeys == nil {
		return 0, nil
	}
	var realms []storage.Realm
	if err := s.view(ctx, noActor, func(tx storage.Tx) (err error) {
		realms, err = tx.Realms()
		return err
	}); err != nil {
		return 0, err
	}
	sealed := 0
	for _, r := range realms {
		// Most starts find nothing to seal: a read transaction says so
		// without taking the writer.
		var readable int
		err := s.view(ctx, noActor, func(tx storage.Tx) (err error) {
			readable, err = s.sealRealmKeys(tx, r.ID, false)
			return err
		})
		if err == nil && readable > 0 {
			err = s.update(ctx, noActor, func(tx storage.Tx) (err error) {
				readable, err = s.sealRealmKeys(tx, r.ID, true)
				return err
			})
		}
		if errors.Is(err, ErrAPIKeySecretMismatch) {
			return sealed, ErrAPIKeySecretMismatch
		}
		if err != nil {
			return sealed, err
		}
		sealed += readable
	}
	return sealed, nil
}

// sealRealmKeys counts the realm's API keys and outgoing-webhook tokens
// stored readable, sealing them when write is set; a key sealed under
// another secret is ErrAPIKeySecretMismatch.
func (s *Service) sealRealmKeys(tx storage.Tx, realmID int64, write bool) (int, error) {
	users, err := tx.Users(realmID, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, u := range users {
		if isSealedAPIKey(u.APIKey) {
			if _, err := s.apiKeys.open(u.APIKey); err != nil {
				return 0, err
			}
			continue
		}
		n++
		if write {
			u.APIKey = s.apiKeys.seal(u.APIKey)
			if err := tx.UpdateUser(u); err != nil {
				return 0, err
			}
		}
	}
	services, err := tx.RealmBotServices(realmID)
	if err != nil {
		return 0, err
	}
	for _, sv := range services {
		if isSealedAPIKey(sv.Token) {
			continue
		}
		n++
		if write {
			sv.Token = s.apiKeys.seal(sv.Token)
			if err := tx.SetBotService(sv); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}
