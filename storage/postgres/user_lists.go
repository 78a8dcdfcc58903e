package postgres

import (
	"maps"
	"slices"

	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/internal/sqlcommon"
)

func (t *tx) readRealmAlertWords(realmID int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	err := t.query("RealmAlertWords", `SELECT user_id, word FROM alert_words WHERE realm_id = $1 ORDER BY user_id, pos`,
		func(sc sqlcommon.Scanner) error {
			var id int64
			var w string
			if err := sc.Scan(&id, &w); err != nil {
				return err
			}
			out[id] = append(out[id], w)
			return nil
		}, realmID)
	return out, err
}

func (t *tx) SetAlertWords(realmID, userID int64, words []string) error {
	var realm int64
	err := t.query("SetAlertWords", `SELECT realm_id FROM users WHERE id = $1`,
		func(sc sqlcommon.Scanner) error { return sc.Scan(&realm) }, userID)
	if err != nil {
		return err
	}
	if realm != realmID || realm == 0 {
		return storage.ErrNotFound
	}
	if _, err := t.exec("SetAlertWords", `DELETE FROM alert_words WHERE user_id = $1`, userID); err != nil {
		return err
	}
	for i, w := range words {
		if _, err := t.exec("SetAlertWords", `INSERT INTO alert_words (realm_id, user_id, pos, word) VALUES ($1, $2, $3, $4)`,
			realmID, userID, i, w); err != nil {
			return err
		}
	}
	return nil
}

func (t *tx) MutedUsers(userID int64) ([]storage.MutedUser, error) {
	out := []storage.MutedUser{}
	err := t.query("MutedUsers", `SELECT muted_user_id, date_muted FROM muted_users WHERE user_id = $1 ORDER BY muted_user_id`,
		func(sc sqlcommon.Scanner) error {
			m := storage.MutedUser{UserID: userID}
			var at int64
			if err := sc.Scan(&m.MutedUserID, &at); err != nil {
				return err
			}
			m.DateMuted = sqlcommon.FromNanos(at)
			out = append(out, m)
			return nil
		}, userID)
	return out, err
}

func (t *tx) readUsersMuting(mutedUserID int64) ([]int64, error) {
	out := []int64{}
	err := t.query("UsersMuting", `SELECT user_id FROM muted_users WHERE muted_user_id = $1 ORDER BY user_id`,
		func(sc sqlcommon.Scanner) error {
			var id int64
			err := sc.Scan(&id)
			out = append(out, id)
			return err
		}, mutedUserID)
	return out, err
}

func (t *tx) MuteUser(m storage.MutedUser) error {
	at, err := sqlcommon.ToNanos(m.DateMuted)
	if err != nil {
		return err
	}
	return t.guarded("MuteUser", func() error {
		_, err := t.exec("MuteUser", `INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES ($1, $2, $3)`,
			m.UserID, m.MutedUserID, at)
		return err
	})
}

func (t *tx) UnmuteUser(userID, mutedUserID int64) error {
	return t.execOne("UnmuteUser", `DELETE FROM muted_users WHERE user_id = $1 AND muted_user_id = $2`, userID, mutedUserID)
}

func (t *tx) UserSettings(userID int64) (map[string]string, error) {
	out := map[string]string{}
	err := t.query("UserSettings", `SELECT name, value FROM user_settings WHERE user_id = $1`, func(sc sqlcommon.Scanner) error {
		var name, value string
		if err := sc.Scan(&name, &value); err != nil {
			return err
		}
		out[name] = value
		return nil
	}, userID)
	return out, err
}

func (t *tx) SetUserSettings(userID int64, values map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if _, err := t.exec("SetUserSettings", `INSERT INTO user_settings (user_id, name, value) VALUES ($1, $2, $3)
			ON CONFLICT (user_id, name) DO UPDATE SET value = excluded.value`, userID, name, values[name]); err != nil {
			return err
		}
	}
	return nil
}
