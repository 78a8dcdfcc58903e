package postgres

import (
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) SetPresence(p *storage.Presence) error {
	active, connected, err := sqlcommon.PresenceTimes(p)
	if err != nil {
		return err
	}
	if err := t.Writable(); err != nil {
		return err
	}
	err = t.tx.QueryRow(t.ctx, `INSERT INTO presence (user_id, realm_id, last_active, last_connected, update_id)
		VALUES ($1, $2, $3, $4, nextval('presence_update_ids')) ON CONFLICT (user_id) DO UPDATE SET
		realm_id = excluded.realm_id, last_active = excluded.last_active, last_connected = excluded.last_connected,
		update_id = excluded.update_id RETURNING update_id`, p.UserID, p.RealmID, active, connected).Scan(&p.UpdateID)
	return t.check("SetPresence", err)
}

func (t *tx) Presence(userID int64) (storage.Presence, error) {
	return one(t, "Presence", sqlcommon.SelectPresence+`WHERE user_id = $1`, sqlcommon.ScanPresence, userID)
}

func (t *tx) Presences(realmID, afterUpdateID int64) ([]storage.Presence, error) {
	return list(t, "Presences", sqlcommon.SelectPresence+`WHERE realm_id = $1 AND update_id > $2 ORDER BY user_id`,
		sqlcommon.ScanPresence, realmID, afterUpdateID)
}

func (t *tx) LastPresenceUpdateID(realmID int64) (int64, error) {
	return one(t, "LastPresenceUpdateID", `SELECT coalesce(max(update_id), 0)::bigint FROM presence WHERE realm_id = $1`,
		scanID, realmID)
}
