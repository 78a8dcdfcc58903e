package chat_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage"
)

// TestPresence checks presence on every backend: reports, the register
// block in both forms, last_update_id, the presence events on a change of
// status (and not on a repeated one), and going offline.
func TestPresence(t *testing.T) {
	forEachStore(t, func(t *testing.T, newStore func(t *testing.T) storage.Store) {
		f := newFixture(t, newStore)
		ctx := t.Context()
		owner, member := chat.AsUser(f.owner.ID), chat.AsUser(f.member.ID)
		st, err := f.svc.Register(ctx, owner, chat.RegisterRequest{EventTypes: []string{"presence"}, FetchEventTypes: []string{"presence"}, SlimPresence: true})
		wantNoErr(t, "Register", err)
		queue := st["queue_id"].(string)
		diff(t, "no presence yet", st["presences"], map[string]any{})
		if st["presence_last_update_id"] != int64(-1) || st["server_presence_ping_interval_seconds"] != chat.PresencePingIntervalSeconds {
			t.Errorf("register presence keys: %v, %v", st["presence_last_update_id"], st["server_presence_ping_interval_seconds"])
		}

		got, err := f.svc.UpdatePresence(ctx, member, chat.PresenceUpdate{Status: "active", SlimPresence: true})
		wantNoErr(t, "UpdatePresence", err)
		now := f.clock.Now().Unix()
		diff(t, "presences", got.Presences, map[string]any{itoa(f.member.ID): map[string]any{"active_timestamp": now, "idle_timestamp": now}})
		first := got.PresenceLastUpdateID
		// A repeated report changes nothing others see: no event.
		f.clock.Advance(30 * time.Second)
		got, err = f.svc.UpdatePresence(ctx, member, chat.PresenceUpdate{Status: "active", LastUpdateID: &first})
		wantNoErr(t, "UpdatePresence again", err)
		if got.PresenceLastUpdateID <= first || len(got.Presences) != 1 {
			t.Errorf("after last_update_id %d: %+v", first, got)
		}
		pingOnly, err := f.svc.UpdatePresence(ctx, chat.AsUser(f.admin.ID), chat.PresenceUpdate{Status: "idle", PingOnly: true})
		wantNoErr(t, "ping_only", err)
		if pingOnly != nil {
			t.Errorf("ping_only answered %+v", pingOnly)
		}
		events, err := f.svc.GetEvents(ctx, owner, queue, -1, true)
		wantNoErr(t, "GetEvents", err)
		var statuses []string
		for _, e := range events {
			var p struct {
				UserID   int64 `json:"user_id"`
				Presence struct {
					Website struct{ Status string } `json:"website"`
				} `json:"presence"`
			}
			wantNoErr(t, "Unmarshal", json.Unmarshal(e.Data, &p))
			statuses = append(statuses, itoa(p.UserID)+" "+p.Presence.Website.Status)
		}
		diff(t, "presence events", statuses, []string{itoa(f.member.ID) + " active", itoa(f.admin.ID) + " idle"})

		st, err = f.svc.Register(ctx, owner, chat.RegisterRequest{FetchEventTypes: []string{"presence"}})
		wantNoErr(t, "Register(legacy)", err)
		presences := st["presences"].(map[string]any)
		if len(presences) != 2 || presences[f.member.Email] == nil {
			t.Errorf("legacy presences: %v", presences)
		}
		_, err = f.svc.UpdatePresence(ctx, member, chat.PresenceUpdate{Status: "busy"})
		wantCodeMsg(t, "bad status", err, chat.CodeBadRequest, "Invalid status: busy")
	})
}
