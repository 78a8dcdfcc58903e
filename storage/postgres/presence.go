package postgres

import (
	"github.com/jackc/pgx/v5"

	"github.com/teamchat/chat/storage"
)

func (t *tx) SetPresence(p *storage.Presence) error {
	active, err := toNanos(p.LastActive)
	if err != nil {
		return err
	}
	connected, err := toNanos(p.LastConnected)
	if err != nil {
		return err
	}
	if err := t.writable(); err != nil {
		return err
	}
	err = t.tx.QueryRow(t.ctx, `INSERT INTO presence (user_id, realm_id, last_active, last_connected, update_id)
		VALUES ($1, $2, $3, $4, nextval('presence_update_ids')) ON CONFLICT (user_id) DO UPDATE SET
		realm_id = excluded.realm_id, last_active = excluded.last_active, last_connected = excluded.last_connected,
		update_id = excluded.update_id RETURNING update_id`, p.UserID, p.RealmID, active, connected).Scan(&p.UpdateID)
	return t.check("SetPresence", err)
}

const selectPresence = `SELECT user_id, realm_id, last_active, last_connected, update_id FROM presence `

func scanPresence(row pgx.Row) (storage.Presence, error) {
	var (
		p                 storage.Presence
		active, connected int64
	)
	err := row.Scan(&p.UserID, &p.RealmID, &active, &connected, &p.UpdateID)
	p.LastActive, p.LastConnected = fromNanos(active), fromNanos(connected)
	return p, err
}

func (t *tx) Presence(userID int64) (storage.Presence, error) {
	return one(t, "Presence", selectPresence+`WHERE user_id = $1`, scanPresence, userID)
}

func (t *tx) Presences(realmID, afterUpdateID int64) ([]storage.Presence, error) {
	return list(t, "Presences", selectPresence+`WHERE realm_id = $1 AND update_id > $2 ORDER BY user_id`,
		scanPresence, realmID, afterUpdateID)
}

func (t *tx) LastPresenceUpdateID(realmID int64) (int64, error) {
	return one(t, "LastPresenceUpdateID", `SELECT coalesce(max(update_id), 0)::bigint FROM presence WHERE realm_id = $1`,
		scanID, realmID)
}
