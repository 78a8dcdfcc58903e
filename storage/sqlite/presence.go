package sqlite

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) SetPresence(p *storage.Presence) error {
	active, connected, err := sqlcommon.PresenceTimes(p)
	if err != nil {
		return err
	}
	// One writer at a time: the greatest ID so far is the last one given.
	var id int64
	if err := t.query("SetPresence", `SELECT coalesce(max(update_id), 0) + 1 FROM presence`,
		func(sc scanner) error { return sc.Scan(&id) }); err != nil {
		return err
	}
	if _, err := t.exec("SetPresence", `INSERT INTO presence (user_id, realm_id, last_active, last_connected, update_id)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET realm_id = excluded.realm_id,
		last_active = excluded.last_active, last_connected = excluded.last_connected, update_id = excluded.update_id`,
		p.UserID, p.RealmID, active, connected, id); err != nil {
		return err
	}
	p.UpdateID = id
	return nil
}

func (t *tx) Presence(userID int64) (storage.Presence, error) {
	list, err := t.presences(sqlcommon.SelectPresence+`WHERE user_id = ?`, userID)
	if err == nil && len(list) == 0 {
		err = storage.ErrNotFound
	}
	if err != nil {
		return storage.Presence{}, err
	}
	return list[0], nil
}

func (t *tx) Presences(realmID, afterUpdateID int64) ([]storage.Presence, error) {
	return t.presences(sqlcommon.SelectPresence+`WHERE realm_id = ? AND update_id > ? ORDER BY user_id`, realmID, afterUpdateID)
}

func (t *tx) presences(query string, args ...any) ([]storage.Presence, error) {
	out := []storage.Presence{}
	err := t.query("Presences", query, sqlcommon.Into(&out, sqlcommon.ScanPresence), args...)
	return out, err
}

func (t *tx) LastPresenceUpdateID(realmID int64) (int64, error) {
	var id int64
	err := t.query("LastPresenceUpdateID", `SELECT coalesce(max(update_id), 0) FROM presence WHERE realm_id = ?`,
		func(sc scanner) error { return sc.Scan(&id) }, realmID)
	return id, err
}
