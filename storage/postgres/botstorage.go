package postgres

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) BotStorage(userID int64, keys []string) ([]storage.BotStorageEntry, error) {
	scan := func(row sqlcommon.Scanner) (storage.BotStorageEntry, error) {
		e := storage.BotStorageEntry{UserID: userID}
		err := row.Scan(&e.Key, &e.Value)
		return e, err
	}
	if keys == nil {
		return list(t, "BotStorage", `SELECT key, value FROM bot_storage WHERE user_id = $1 ORDER BY key`, scan, userID)
	}
	return list(t, "BotStorage", `SELECT key, value FROM bot_storage WHERE user_id = $1 AND key = ANY($2) ORDER BY key`,
		scan, userID, keys)
}

func (t *tx) BotStorageSize(userID int64) (int64, error) {
	return one(t, "BotStorageSize", `SELECT COALESCE(SUM(char_length(key) + char_length(value)), 0) FROM bot_storage
		WHERE user_id = $1`, func(row sqlcommon.Scanner) (int64, error) {
		var n int64
		err := row.Scan(&n)
		return n, err
	}, userID)
}

func (t *tx) SetBotStorage(entries []storage.BotStorageEntry) error {
	for _, e := range entries {
		if _, err := t.exec("SetBotStorage", `INSERT INTO bot_storage (user_id, key, value) VALUES ($1, $2, $3)
			ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value`, e.UserID, e.Key, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) DeleteBotStorage(userID int64, keys []string) error {
	_, err := t.exec("DeleteBotStorage", `DELETE FROM bot_storage WHERE user_id = $1 AND key = ANY($2)`, userID, keys)
	return err
}

func (t *tx) SetBotService(s storage.BotService) error {
	_, err := t.exec("SetBotService", `INSERT INTO bot_services (bot_id, realm_id, payload_url, token, interface)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (bot_id) DO UPDATE SET payload_url = excluded.payload_url,
		token = excluded.token, interface = excluded.interface`, s.BotID, s.RealmID, s.PayloadURL, s.Token, int64(s.Interface))
	return err
}

func (t *tx) RealmBotServices(realmID int64) ([]storage.BotService, error) {
	out := []storage.BotService{}
	err := t.query("RealmBotServices", `SELECT bot_id, realm_id, payload_url, token, interface FROM bot_services
		WHERE realm_id = $1 ORDER BY bot_id`, func(sc sqlcommon.Scanner) error {
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
