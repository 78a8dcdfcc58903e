package sqlite

import (
	"encoding/json"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

// The bot storage's statements run by text: bots use them far less often
// than the prepared statements of the hot paths.

func (t *tx) BotStorage(userID int64, keys []string) ([]storage.BotStorageEntry, error) {
	out := []storage.BotStorageEntry{}
	scan := func(sc scanner) error {
		e := storage.BotStorageEntry{UserID: userID}
		if err := sc.Scan(&e.Key, &e.Value); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	}
	if keys == nil {
		return out, t.query("BotStorage", `SELECT key, value FROM bot_storage WHERE user_id = ? ORDER BY key`, scan, userID)
	}
	return out, t.query("BotStorage", `SELECT key, value FROM bot_storage
		WHERE user_id = ? AND key IN (SELECT value FROM json_each(?)) ORDER BY key`, scan, userID, keysJSON(keys))
}

func (t *tx) BotStorageSize(userID int64) (int64, error) {
	var n int64
	err := t.query("BotStorageSize", `SELECT COALESCE(SUM(length(key) + length(value)), 0) FROM bot_storage WHERE user_id = ?`,
		func(sc scanner) error { return sc.Scan(&n) }, userID)
	return n, err
}

func (t *tx) SetBotStorage(entries []storage.BotStorageEntry) error {
	for _, e := range entries {
		if _, err := t.exec("SetBotStorage", `INSERT INTO bot_storage (user_id, key, value) VALUES (?, ?, ?)
			ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value`, e.UserID, e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeleteBotStorage(userID int64, keys []string) error {
	_, err := t.exec("DeleteBotStorage", `DELETE FROM bot_storage WHERE user_id = ? AND key IN (SELECT value FROM json_each(?))`,
		userID, keysJSON(keys))
	return err
}

// keysJSON is a list of strings as the JSON array json_each reads.
func keysJSON(keys []string) string {
	if keys == nil {
		keys = []string{}
	}
	b, _ := json.Marshal(keys) // strings always marshal
	return string(b)
}

func (t *tx) SetBotService(s storage.BotService) error {
	_, err := t.exec("SetBotService", `INSERT INTO bot_services (bot_id, realm_id, payload_url, token, interface)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (bot_id) DO UPDATE SET payload_url = excluded.payload_url,
		token = excluded.token, interface = excluded.interface`, s.BotID, s.RealmID, s.PayloadURL, s.Token, int64(s.Interface))
	return err
}

func (t *tx) RealmBotServices(realmID int64) ([]storage.BotService, error) {
	out := []storage.BotService{}
	err := t.query("RealmBotServices", `SELECT bot_id, realm_id, payload_url, token, interface FROM bot_services
		WHERE realm_id = ? ORDER BY bot_id`, func(sc sqlcommon.Scanner) error {
		var s storage.BotService
		var iface int64
		if err := sc.Scan(&s.BotID, &s.RealmID, &s.PayloadURL, &s.Token, &iface); err != nil {
			return err
		}
		s.Interface = int(iface)
		out = append(out, s)
		return nil
	}, realmID)
	return out, err
}
