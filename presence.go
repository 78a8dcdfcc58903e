package chat

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/teamchat/chat/storage"
)

// Presence, as the reference server keeps it: clients report every
// PresencePingIntervalSeconds whether their user is active or idle, and a
// user whose last report is older than PresenceOfflineThresholdSeconds is
// offline.
const (
	PresencePingIntervalSeconds     = 60
	PresenceOfflineThresholdSeconds = 140
	// presenceActivityOffset is how much older than the last connection
	// the last activity may be for the legacy format to say "active".
	presenceActivityOffset = 70 * time.Second
	// defaultPresenceHistoryDays bounds the presences returned: users not
	// connected for longer are left out.
	defaultPresenceHistoryDays = 14
)

// PresenceUpdate is a client's report of its user's presence.
type PresenceUpdate struct {
	// Status is "active" or "idle".
	Status string
	// PingOnly asks for no presence data in the answer.
	PingOnly bool
	// SlimPresence asks for the presences by user ID, each with its
	// active_timestamp and idle_timestamp; otherwise they are by email
	// in the legacy form. LastUpdateID implies it.
	SlimPresence bool
	// LastUpdateID, when not nil, asks only for the presences that
	// changed after it.
	LastUpdateID *int64
	// HistoryLimitDays bounds how long ago a user may have been connected
	// and still be listed; nil means 14 days.
	HistoryLimitDays *int
}

// PresenceState is the presence data of an answer: presences keyed by
// user ID or email, the last update's ID, and the server's time.
type PresenceState struct {
	Presences            map[string]any `json:"presences"`
	PresenceLastUpdateID int64          `json:"presence_last_update_id"`
	ServerTimestamp      float64        `json:"server_timestamp"`
}

// ErrNoPresence answers a presence request for a user with none, or who
// turned presence off.
func errNoPresence(email string) error { return errorf("No presence data for %s", email) }

// UpdatePresence records the actor's report and, unless PingOnly, returns
// the organization's presences. Users who turned presence_enabled off are
// never listed. When the actor's status (active, idle or offline) changes,
// every active user gets a presence event. Any user may call it.
//
// Errors: "Invalid status: {status}"; those of the actor check.
func (s *Service) UpdatePresence(ctx context.Context, actor Actor, req PresenceUpdate) (*PresenceState, error) {
	if req.Status != "active" && req.Status != "idle" {
		return nil, errorf("Invalid status: %s", req.Status)
	}
	var out *PresenceState
	err := s.updateWithEvents(ctx, actor, func(tx storage.Tx, emit func(Event)) error {
		u, realm, err := s.admit(tx, actor, OpUpdatePresence)
		if err != nil {
			return err
		}
		now := s.now()
		p := storage.Presence{UserID: u.ID, RealmID: realm.ID, LastConnected: now}
		before := ""
		switch old, err := tx.Presence(u.ID); {
		case err == nil:
			p.LastActive, before = old.LastActive, presenceStatus(&old, now)
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
		if req.Status == "active" {
			p.LastActive = now
		}
		if err := tx.SetPresence(&p); err != nil {
			return err
		}
		if after := presenceStatus(&p, now); after != before && u.PresenceEnabled {
			emit(Event{RealmID: realm.ID, AllUsers: true, Payload: map[string]any{
				"type": "presence", "user_id": u.ID, "email": apiEmail(&u, s.emailDomain(realm)),
				"server_timestamp": unixSeconds(now),
				"presence":         map[string]any{"website": legacyPresence(&p, now)},
			}})
		}
		if req.PingOnly {
			return nil
		}
		out, err = s.presenceState(tx, realm, now, req.SlimPresence || req.LastUpdateID != nil, req.LastUpdateID, req.HistoryLimitDays)
		return err
	})
	return out, err
}

// RealmPresence returns the presences of the actor's organization, by
// email in the legacy form. Any user may call it.
//
// Errors: those of the actor check.
func (s *Service) RealmPresence(ctx context.Context, actor Actor) (PresenceState, error) {
	var out PresenceState
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		_, realm, err := s.admit(tx, actor, OpRealmPresence)
		if err != nil {
			return err
		}
		st, err := s.presenceState(tx, realm, s.now(), false, nil, nil)
		if err == nil {
			out = *st
		}
		return err
	})
	return out, err
}

// UserPresence returns one user's presence in the legacy form:
// "aggregated" and "website". Any user may call it for a user of their
// organization, named by ID or by an address they may see.
//
// Errors: ErrNoSuchUser; "No presence data for {email}" for a user
// without presence or who turned it off; those of the actor check.
func (s *Service) UserPresence(ctx context.Context, actor Actor, userID int64, email string) (map[string]any, error) {
	var out map[string]any
	err := s.view(ctx, actor, func(tx storage.Tx) error {
		me, realm, err := s.admit(tx, actor, OpUserPresence)
		if err != nil {
			return err
		}
		var target storage.UserRecord
		if email != "" {
			target, err = s.userByAPIEmail(tx, realm, &me, email)
			if errors.Is(err, storage.ErrNotFound) {
				err = ErrNoSuchUser
			}
		} else {
			target, err = targetUser(tx, realm.ID, userID)
		}
		if err != nil {
			return err
		}
		shown := apiEmail(&target, s.emailDomain(realm))
		if !target.PresenceEnabled {
			return errNoPresence(shown)
		}
		p, err := tx.Presence(target.ID)
		if errors.Is(err, storage.ErrNotFound) {
			return errNoPresence(shown)
		}
		if err != nil {
			return err
		}
		out = legacyPresenceEntry(&p, s.now())
		return nil
	})
	return out, err
}

// presenceState reads the realm's presences for an answer.
func (s *Service) presenceState(tx storage.Tx, realm Realm, now time.Time, slim bool, after *int64, historyDays *int) (*PresenceState, error) {
	since := int64(0)
	if after != nil && *after > 0 {
		since = *after
	}
	days := defaultPresenceHistoryDays
	if historyDays != nil && *historyDays > 0 {
		days = *historyDays
	}
	list, err := tx.Presences(realm.ID, since)
	if err != nil {
		return nil, err
	}
	last, err := tx.LastPresenceUpdateID(realm.ID)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.UserID
	}
	users, err := tx.Users(realm.ID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*storage.UserRecord, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	out := &PresenceState{Presences: map[string]any{}, PresenceLastUpdateID: last, ServerTimestamp: unixSeconds(now)}
	if last == 0 {
		out.PresenceLastUpdateID = -1
	}
	cutoff := now.AddDate(0, 0, -days)
	for _, p := range list {
		u := byID[p.UserID]
		if u == nil || !u.IsActive || !u.PresenceEnabled || u.IsBot() || p.LastConnected.Before(cutoff) {
			continue
		}
		if slim {
			out.Presences[strconv.FormatInt(u.ID, 10)] = map[string]any{
				"active_timestamp": presenceTime(p.LastActive), "idle_timestamp": presenceTime(p.LastConnected)}
			continue
		}
		out.Presences[apiEmail(u, s.emailDomain(realm))] = legacyPresenceEntry(&p, now)
	}
	return out, nil
}

// legacyPresence is one client's presence in the legacy form: active when
// the last activity is recent enough next to the last connection.
func legacyPresence(p *storage.Presence, now time.Time) map[string]any {
	status, at := "idle", p.LastConnected
	if !p.LastActive.IsZero() && !p.LastActive.Add(presenceActivityOffset).Before(p.LastConnected) {
		status, at = "active", p.LastActive
	}
	return map[string]any{"client": "website", "status": status, "timestamp": at.Unix(), "pushable": false}
}

// legacyPresenceEntry is a user's presence in the legacy form: by client
// ("website", the only one this server tells apart) and "aggregated".
func legacyPresenceEntry(p *storage.Presence, now time.Time) map[string]any {
	website := legacyPresence(p, now)
	return map[string]any{"website": website, "aggregated": map[string]any{
		"client": website["client"], "status": website["status"], "timestamp": website["timestamp"]}}
}

// presenceStatus is what others see of a presence now: "active", "idle"
// or "offline".
func presenceStatus(p *storage.Presence, now time.Time) string {
	if now.Sub(p.LastConnected) > PresenceOfflineThresholdSeconds*time.Second {
		return "offline"
	}
	return legacyPresence(p, now)["status"].(string)
}

// presenceTime is a presence time on the wire: Unix seconds, 0 for never.
func presenceTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// unixSeconds is t as fractional Unix seconds, as server_timestamp.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// presenceRegisterState is the "presence" block of POST /register:
// presences (by user ID with slim_presence, else by email in the legacy
// form), presence_last_update_id and the server's presence intervals.
func presenceRegisterState(s *Service, ctx context.Context, actor Actor, req *RegisterRequest, state RegisterState) error {
	return s.registerViewer(ctx, actor, req, func(tx storage.Tx, v *viewer) error {
		st, err := s.presenceState(tx, v.realm, s.now(), req.SlimPresence, nil, req.PresenceHistoryLimitDays)
		if err != nil {
			return err
		}
		state["presences"] = st.Presences
		state["presence_last_update_id"] = st.PresenceLastUpdateID
		state["server_timestamp"] = st.ServerTimestamp
		state["server_presence_ping_interval_seconds"] = PresencePingIntervalSeconds
		state["server_presence_offline_threshold_seconds"] = PresenceOfflineThresholdSeconds
		return nil
	})
}
