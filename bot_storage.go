package chat

import (
	"context"
	"slices"
	"unicode/utf8"

	"github.com/teamchat/chat/storage"
)

// Bot storage is the key-value store in which bots (and any user) keep
// their state through the API, as the reference server's bot framework
// does; its size counts the code points of keys and values.

// DefaultBotStorageLimit is Config.BotStorageLimit's default: the
// reference server's limit, in code points.
const DefaultBotStorageLimit = 10_000_000

// ErrBotStorageKeyMissing answers a read or removal of a key that the
// storage does not hold.
var ErrBotStorageKeyMissing = errorf("Key does not exist.")

// BotStorage returns entries of the actor's bot storage, by key: all of
// them when keys is nil, else the keys named. Any user may call it.
//
// Errors: ErrBotStorageKeyMissing when a named key has no entry; those of
// the actor check.
func (s *Service) BotStorage(ctx context.Context, actor Actor, keys []string) (map[string]string, error) {
	out := map[string]string{}
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpBotStorage)
		if err != nil {
			return err
		}
		entries, err := tx.BotStorage(u.ID, keys)
		if err != nil {
			return err
		}
		for _, e := range entries {
			out[e.Key] = e.Value
		}
		for _, k := range keys {
			if _, ok := out[k]; !ok {
				return ErrBotStorageKeyMissing
			}
		}
		return nil
	})
	return out, err
}

// SetBotStorage stores entries in the actor's bot storage, replacing the
// values of keys it holds, all or none. Any user may call it.
//
// Errors: "Request exceeds storage limit by {n} characters. The limit is
// {limit} characters." when the storage would hold more than
// Config.BotStorageLimit code points; those of the actor check.
func (s *Service) SetBotStorage(ctx context.Context, actor Actor, entries map[string]string) error {
	return s.update(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpSetBotStorage)
		if err != nil {
			return err
		}
		keys := make([]string, 0, len(entries))
		var added int64
		for k, v := range entries {
			keys = append(keys, k)
			added += int64(utf8.RuneCountInString(k) + utf8.RuneCountInString(v))
		}
		slices.Sort(keys)
		old, err := tx.BotStorage(u.ID, keys)
		if err != nil {
			return err
		}
		for _, e := range old {
			added -= int64(utf8.RuneCountInString(e.Key) + utf8.RuneCountInString(e.Value))
		}
		size, err := tx.BotStorageSize(u.ID)
		if err != nil {
			return err
		}
		if limit := int64(s.cfg.BotStorageLimit); size+added > limit {
			return errorf("Request exceeds storage limit by %d characters. The limit is %d characters.", size+added-limit, limit)
		}
		rows := make([]storage.BotStorageEntry, len(keys))
		for i, k := range keys {
			rows[i] = storage.BotStorageEntry{UserID: u.ID, Key: k, Value: entries[k]}
		}
		return tx.SetBotStorage(rows)
	})
}

// DeleteBotStorage removes keys from the actor's bot storage: every key
// when keys is nil. Any user may call it.
//
// Errors: ErrBotStorageKeyMissing, removing nothing, when a named key has
// no entry; those of the actor check.
func (s *Service) DeleteBotStorage(ctx context.Context, actor Actor, keys []string) error {
	return s.update(ctx, actor, func(tx storage.Tx) error {
		u, _, err := s.admit(tx, actor, OpDeleteBotStorage)
		if err != nil {
			return err
		}
		held, err := tx.BotStorage(u.ID, keys)
		if err != nil {
			return err
		}
		if keys != nil {
			have := make(map[string]bool, len(held))
			for _, e := range held {
				have[e.Key] = true
			}
			for _, k := range keys {
				if !have[k] {
					return ErrBotStorageKeyMissing
				}
			}
		}
		all := make([]string, len(held))
		for i, e := range held {
			all[i] = e.Key
		}
		return tx.DeleteBotStorage(u.ID, all)
	})
}
