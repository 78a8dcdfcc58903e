package httpserver_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// role is one of the env's accounts with its name, for tables by role.
type role struct {
	name string
	a    *account
}

func (e *env) roles() []role {
	return []role{{"owner", &e.owner}, {"admin", &e.admin}, {"moderator", &e.moderator},
		{"member", &e.member}, {"guest", &e.guest}, {"bot", &e.bot}}
}

// TestSubscribeByRole: everyone but guests may create and join public and
// private channels; guests are refused before the parameters are read
// (B2.1), so even a request without them gets the guest error.
func TestSubscribeByRole(t *testing.T) {
	e := newEnv(t)
	for _, r := range e.roles() {
		t.Run(r.name, func(t *testing.T) {
			e.t = t
			for _, f := range [][]string{nil, {"subscriptions", "["}, {"subscriptions", `[{"name":"g"}]`, "principals", `[999]`}} {
				res := e.call(http.MethodPost, "/users/me/subscriptions", r.a, form(f...))
				if r.name == "guest" {
					e.expectError(res, 400, chat.CodeBadRequest, "Not allowed for guest users")
				} else if res.status != 400 || res.body["msg"] == "Not allowed for guest users" {
					t.Errorf("%v: %s", f, res.raw)
				}
			}
			if r.name == "guest" {
				return
			}
			id := itoa(r.a.id)
			res := e.call(http.MethodPost, "/users/me/subscriptions", r.a,
				form("subscriptions", `[{"name":"public-`+r.name+`"}]`))
			e.expect(res, 200, success("subscribed", map[string]any{id: []any{"public-" + r.name}},
				"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
			res = e.call(http.MethodPost, "/users/me/subscriptions", r.a,
				form("subscriptions", `[{"name":"private-`+r.name+`"}]`, "invite_only", "true"))
			e.expect(res, 200, success("subscribed", map[string]any{id: []any{"private-" + r.name}},
				"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
			// Default channels need an administrator.
			res = e.call(http.MethodPost, "/users/me/subscriptions", r.a,
				form("subscriptions", `[{"name":"default-`+r.name+`"}]`, "is_default_stream", "true"))
			if r.name == "owner" || r.name == "admin" {
				e.expect(res, 200, success("subscribed", map[string]any{id: []any{"default-" + r.name}},
					"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
			} else {
				e.expectError(res, 400, chat.CodeBadRequest, "Insufficient permission")
			}
			// An explicit retention period needs an owner.
			res = e.call(http.MethodPost, "/users/me/subscriptions", r.a,
				form("subscriptions", `[{"name":"kept-`+r.name+`"}]`, "message_retention_days", `"unlimited"`))
			if r.name == "owner" {
				e.expect(res, 200, success("subscribed", map[string]any{id: []any{"kept-" + r.name}},
					"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
			} else {
				e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization owner")
			}
		})
	}
}

// TestSubscribeOthersByRole: anyone who may join a public channel may add
// others to it; a private channel needs a subscriber or an administrator.
func TestSubscribeOthersByRole(t *testing.T) {
	e := newEnv(t)
	e.subscribeAs(&e.owner, "open")
	e.subscribeAs(&e.owner, "closed", "invite_only", "true")
	target := e.membersOnly
	for _, r := range e.roles() {
		if r.name == "guest" {
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			e.t = t
			principals := "[" + itoa(target.id) + "]"
			res := e.call(http.MethodPost, "/users/me/subscriptions", r.a, form("subscriptions", `[{"name":"open"}]`, "principals", principals))
			if res.status != 200 {
				t.Errorf("adding to a public channel: %s", res.raw)
			}
			res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.owner, form("subscriptions", `["open"]`, "principals", principals))
			e.expect(res, 200, success("removed", []any{"open"}, "not_removed", []any{}))
			res = e.call(http.MethodPost, "/users/me/subscriptions", r.a, form("subscriptions", `[{"name":"closed"}]`, "principals", principals))
			switch r.name {
			case "owner":
				// Already subscribed as the creator: others may be added.
				e.expect(res, 200, success("subscribed", map[string]any{itoa(target.id): []any{"closed"}},
					"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
			case "admin":
				e.expect(res, 200, success("subscribed", map[string]any{}, "already_subscribed",
					map[string]any{itoa(target.id): []any{"closed"}}, "new_subscription_messages_sent", true))
			default:
				e.expectError(res, 400, chat.CodeBadRequest, "Unable to access channel (closed).")
			}
		})
	}
}

// TestChannelReadsByRole: GET /streams, GET /streams/{id}, GET
// /users/me/subscriptions, GET /user_groups and GET /channel_folders for
// every role (C7, C9.2, C11).
func TestChannelReadsByRole(t *testing.T) {
	e := newEnv(t)
	open := e.subscribeAs(&e.owner, "open")
	closed := e.subscribeAs(&e.owner, "closed", "invite_only", "true")
	guestOnly := e.subscribeAs(&e.admin, "guests", "invite_only", "true", "principals", "["+itoa(e.admin.id)+","+itoa(e.guest.id)+"]")
	res := e.call(http.MethodPost, "/channel_folders/create", &e.admin, form("name", "F", "description", ""))
	e.expect(res, 200, success("channel_folder_id", float64(1)))
	folder := map[string]any{"id": float64(1), "name": "F", "order": float64(1), "description": "", "rendered_description": "",
		"creator_id": float64(e.admin.id), "date_created": float64(joined.Unix()), "is_archived": false}
	objects := map[int64]map[string]any{open: e.streamObject(open), closed: e.streamObject(closed), guestOnly: e.streamObject(guestOnly)}
	streams := func(ids ...int64) []any {
		out := []any{}
		for _, id := range ids {
			out = append(out, objects[id])
		}
		return out
	}
	for _, c := range []struct {
		r role
		// Default GET /streams (public + subscribed), include_all (both
		// sorted by name), and the channels GET /streams/{id} answers.
		def, all, visible []int64
	}{
		{role{"owner", &e.owner}, []int64{closed, open}, []int64{closed, guestOnly, open}, []int64{open, closed, guestOnly}},
		{role{"admin", &e.admin}, []int64{guestOnly, open}, []int64{closed, guestOnly, open}, []int64{open, closed, guestOnly}},
		{role{"moderator", &e.moderator}, []int64{open}, []int64{open}, []int64{open}},
		{role{"member", &e.member}, []int64{open}, []int64{open}, []int64{open}},
		{role{"guest", &e.guest}, []int64{guestOnly}, []int64{guestOnly}, []int64{guestOnly}},
		{role{"bot", &e.bot}, []int64{open}, []int64{open}, []int64{open}},
	} {
		t.Run(c.r.name, func(t *testing.T) {
			e.t = t
			e.expect(e.call(http.MethodGet, "/streams", c.r.a, nil), 200, success("streams", streams(c.def...)))
			e.expect(e.call(http.MethodGet, "/streams", c.r.a, form("include_all", "true")), 200, success("streams", streams(c.all...)))
			for _, id := range []int64{open, closed, guestOnly} {
				res := e.call(http.MethodGet, "/streams/"+itoa(id), c.r.a, nil)
				if slices.Contains(c.visible, id) {
					e.expect(res, 200, success("stream", objects[id]))
				} else {
					e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
				}
			}
			e.expect(e.call(http.MethodGet, "/channel_folders", c.r.a, nil), 200, success("channel_folders", []any{folder}))
			res := e.call(http.MethodGet, "/user_groups", c.r.a, nil)
			if groups, _ := res.body["user_groups"].([]any); res.status != 200 || len(groups) != 8 {
				t.Errorf("user_groups: %s", res.raw)
			}
		})
	}
}

// TestSubscriptionSettingsByRole: every role may change its own
// subscriptions' settings (B2.2, B2.3) and mute topics of channels it can
// access (B2.4, C7.5); a guest cannot reach a public channel it is not in.
func TestSubscriptionSettingsByRole(t *testing.T) {
	e := newEnv(t)
	open := e.subscribeAs(&e.owner, "open")
	all := "["
	for i, r := range e.roles() {
		if i > 0 {
			all += ","
		}
		all += itoa(r.a.id)
	}
	e.subscribeAs(&e.owner, "everyone", "invite_only", "true", "principals", all+"]")
	everyone := e.subscribeAs(&e.owner, "everyone")
	for _, r := range e.roles() {
		t.Run(r.name, func(t *testing.T) {
			e.t = t
			sid := itoa(everyone)
			res := e.call(http.MethodPost, "/users/me/subscriptions/properties", r.a, form("subscription_data",
				`[{"stream_id":`+sid+`,"property":"is_muted","value":true},{"stream_id":`+sid+`,"property":"color","value":"#123"}]`))
			e.expect(res, 200, success())
			res = e.call(http.MethodPatch, "/users/me/subscriptions/"+sid, r.a, form("property", "pin_to_top", "value", "true"))
			e.expect(res, 200, success())
			sub := e.subscriptionObject(r.a, everyone)
			if sub["is_muted"] != true || sub["in_home_view"] != false || sub["color"] != "#123" || sub["pin_to_top"] != true {
				t.Errorf("subscription after changes: %v", sub)
			}
			res = e.call(http.MethodPatch, "/users/me/subscriptions/"+itoa(open), r.a, form("property", "pin_to_top", "value", "true"))
			if r.name == "owner" {
				e.expect(res, 200, success())
			} else if r.name == "guest" {
				e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
			} else {
				e.expectError(res, 400, chat.CodeBadRequest, "Not subscribed to channel ID "+itoa(open))
			}
			res = e.call(http.MethodPatch, "/users/me/subscriptions/muted_topics", r.a, form("stream_id", itoa(open), "topic", "t", "op", "add"))
			if r.name == "guest" {
				e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
			} else {
				e.expect(res, 200, success())
			}
			res = e.call(http.MethodPost, "/user_topics", r.a, form("stream_id", itoa(open), "topic", "t", "visibility_policy", "0"))
			e.expect(res, 200, success()) // inherit needs only the channel to exist
			res = e.call(http.MethodPost, "/user_topics", r.a, form("stream_id", sid, "topic", "t", "visibility_policy", "3"))
			e.expect(res, 200, success())
		})
	}
}

// TestAdminOnlyChannelRoutesByRole: channel folders (B2.12, C9.1) and
// delete_topic (B2.14) refuse non-administrators before reading the
// parameters.
func TestAdminOnlyChannelRoutesByRole(t *testing.T) {
	e := newEnv(t)
	id := e.subscribeAs(&e.owner, "t")
	e.subscribeAs(&e.admin, "t")
	for _, r := range e.roles() {
		t.Run(r.name, func(t *testing.T) {
			e.t = t
			admin := r.name == "owner" || r.name == "admin"
			for _, c := range []struct {
				method, path string
				f            []string
			}{
				{http.MethodPost, "/channel_folders/create", nil},
				{http.MethodPatch, "/channel_folders/999", []string{"is_archived", "maybe"}},
				{http.MethodPost, "/streams/" + itoa(id) + "/delete_topic", nil},
			} {
				res := e.call(c.method, c.path, r.a, form(c.f...))
				if admin {
					if res.status != 400 || res.body["code"] == string(chat.CodeUnauthorizedPrincipal) {
						t.Errorf("%s %s: %s", c.method, c.path, res.raw)
					}
					continue
				}
				e.expectError(res, 400, chat.CodeUnauthorizedPrincipal, "Must be an organization administrator")
			}
			if !admin {
				return
			}
			res := e.call(http.MethodPost, "/channel_folders/create", r.a, form("name", "by "+r.name, "description", ""))
			if res.status != 200 {
				t.Fatal(res.raw)
			}
			folder := itoa(int64(res.body["channel_folder_id"].(float64)))
			e.expect(e.call(http.MethodPatch, "/channel_folders/"+folder, r.a, form("is_archived", "true")), 200, success())
			e.expect(e.call(http.MethodPatch, "/channel_folders/"+folder, r.a, form("is_archived", "false")), 200, success())
			res = e.call(http.MethodPatch, "/channel_folders/"+folder, r.a, form("is_archived", "maybe"))
			e.expectError(res, 400, chat.CodeBadRequest, "is_archived is not valid JSON")
			res = e.call(http.MethodPatch, "/channel_folders/"+folder, r.a, form("is_archived", "1"))
			e.expectError(res, 400, chat.CodeBadRequest, "is_archived is not a boolean")
			res = e.call(http.MethodPost, "/streams/"+itoa(id)+"/delete_topic", r.a, nil)
			e.expectError(res, 400, chat.CodeRequestVariableMissing, "Missing 'topic_name' argument", "var_name", "topic_name")
			res = e.call(http.MethodPost, "/streams/"+itoa(id)+"/delete_topic", r.a, form("topic_name", "channel events"))
			e.expect(res, 200, success("complete", true))
			res = e.call(http.MethodPost, "/streams/999/delete_topic", r.a, form("topic_name", "x"))
			e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel ID")
		})
	}
}

// TestChannelFolderRules covers the rest of B2.12 and C9.1: lengths,
// characters, archived names, no-op renames and unarchiving.
func TestChannelFolderRules(t *testing.T) {
	e := newEnv(t)
	long := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'x'
		}
		return string(b)
	}
	for _, c := range []struct {
		f   []string
		msg string
	}{
		{[]string{"name", long(61), "description", ""}, "name is too long (limit: 60 characters)"},
		{[]string{"name", "ok", "description", long(1025)}, "description is too long (limit: 1024 characters)"},
		{[]string{"name", "a\u0007b", "description", ""}, "Invalid character in channel folder name, at position 2."},
	} {
		e.expectError(e.call(http.MethodPost, "/channel_folders/create", &e.owner, form(c.f...)), 400, chat.CodeBadRequest, c.msg)
	}
	e.expect(e.call(http.MethodPost, "/channel_folders/create", &e.owner, form("name", long(60), "description", long(1024))),
		200, success("channel_folder_id", float64(1)))
	e.expect(e.call(http.MethodPost, "/channel_folders/create", &e.owner, form("name", "Old", "description", "")),
		200, success("channel_folder_id", float64(2)))
	e.expect(e.call(http.MethodPatch, "/channel_folders/2", &e.owner, form("is_archived", "true")), 200, success())
	// An archived folder's name is still taken.
	e.expectError(e.call(http.MethodPost, "/channel_folders/create", &e.owner, form("name", "OLD", "description", "")),
		400, chat.CodeBadRequest, "Channel folder 'OLD' already exists")
	e.expectError(e.call(http.MethodPatch, "/channel_folders/1", &e.owner, form("name", "old")),
		400, chat.CodeBadRequest, "Channel folder 'old' already exists")
	for _, c := range []struct {
		f   []string
		msg string
	}{
		{[]string{"name", " "}, "Channel folder name can't be empty."},
		{[]string{"name", long(61)}, "name is too long (limit: 60 characters)"},
		{[]string{"name", "\u0000"}, "Invalid character in channel folder name, at position 1."},
		{[]string{"description", long(1025)}, "description is too long (limit: 1024 characters)"},
	} {
		e.expectError(e.call(http.MethodPatch, "/channel_folders/2", &e.owner, form(c.f...)), 400, chat.CodeBadRequest, c.msg)
	}
	// The same name is no change, not a conflict; unarchiving works.
	e.expect(e.call(http.MethodPatch, "/channel_folders/2", &e.owner, form("name", "Old", "is_archived", "false")), 200, success())
	res := e.call(http.MethodGet, "/channel_folders", &e.member, form("include_archived", "false"))
	if got := len(res.body["channel_folders"].([]any)); got != 2 {
		t.Errorf("%d folders listed, want 2: %s", got, res.raw)
	}
	e.expect(e.call(http.MethodPatch, "/channel_folders/1", &e.owner, form("is_archived", "true")), 200, success())
	res = e.call(http.MethodGet, "/channel_folders", &e.member, nil)
	if got := len(res.body["channel_folders"].([]any)); got != 1 {
		t.Errorf("%d folders without archived ones, want 1: %s", got, res.raw)
	}
	res = e.call(http.MethodGet, "/channel_folders", &e.member, form("include_archived", "true"))
	if got := len(res.body["channel_folders"].([]any)); got != 2 {
		t.Errorf("%d folders with archived ones, want 2: %s", got, res.raw)
	}
	// An archived folder takes no new channels.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, form("subscriptions", `[{"name":"x"}]`, "folder_id", "1"))
	e.expectError(res, 400, chat.CodeBadRequest, "Invalid channel folder ID")
}

// TestUserGroupsByRole: every role gets the same system groups (C11),
// with the members of each role, and deactivated groups only on request.
func TestUserGroupsByRole(t *testing.T) {
	e := newEnv(t)
	members := sortedIDs(e.member.id, e.bot.id, e.webhook.id, e.membersOnly.id, e.adminsOnly.id, e.modsOnly.id, e.nobody.id)
	group := func(id int, name, desc string, members []any, sub ...any) any {
		if sub == nil {
			sub = []any{}
		}
		return map[string]any{"id": float64(id), "name": name, "description": desc, "members": members,
			"direct_subgroup_ids": sub, "is_system_group": true, "creator_id": nil,
			"date_created": float64(joined.Unix()), "deactivated": false, "can_add_members_group": float64(1),
			"can_join_group": float64(1), "can_leave_group": float64(1), "can_manage_group": float64(1),
			"can_mention_group": float64(1), "can_remove_members_group": float64(1)}
	}
	want := success("user_groups", []any{
		group(1, "role:nobody", "Nobody", []any{}),
		group(2, "role:owners", "Owners of this organization", sortedIDs(e.owner.id)),
		group(3, "role:administrators", "Administrators of this organization, including owners", sortedIDs(e.admin.id), float64(2)),
		group(4, "role:moderators", "Moderators of this organization, including administrators", sortedIDs(e.moderator.id), float64(3)),
		group(5, "role:fullmembers", "Members of this organization, not including new accounts and guests", members, float64(4)),
		group(6, "role:members", "Members of this organization, not including guests", members, float64(5)),
		group(7, "role:everyone", "Everyone in this organization, including guests", sortedIDs(e.guest.id), float64(6)),
		group(8, "role:internet", "Everyone on the Internet", []any{}, float64(7)),
	})
	for _, r := range e.roles() {
		t.Run(r.name, func(t *testing.T) {
			e.t = t
			e.expect(e.call(http.MethodGet, "/user_groups", r.a, nil), 200, want)
			e.expect(e.call(http.MethodGet, "/user_groups", r.a, form("include_deactivated_groups", "true")), 200, want)
		})
	}
}

// TestWebPublicChannels: creating one needs the server's setting, the
// organization's spectator access and an owner; everyone then sees it,
// guests included (B2.1 step 3).
func TestWebPublicChannels(t *testing.T) {
	e := newEnvWith(t, memory.New(), func(c *chat.Config) { c.WebPublicChannels = true })
	req := form("subscriptions", `[{"name":"web"}]`, "is_web_public", "true", "invite_only", "true")
	e.expectError(e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, req), 400, chat.CodeBadRequest, "Web-public channels are not enabled.")
	e.expect(e.call(http.MethodPatch, "/realm", &e.owner, form("enable_spectator_access", "true")), 200, success("enable_spectator_access", true))
	for _, a := range []*account{&e.admin, &e.member} {
		e.expectError(e.call(http.MethodPost, "/users/me/subscriptions", a, req), 400, chat.CodeBadRequest, "Insufficient permission")
	}
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.owner, req)
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.owner.id): []any{"web"}},
		"already_subscribed", map[string]any{}, "new_subscription_messages_sent", true))
	id := e.subscribeAs(&e.owner, "web")
	stream := e.streamObject(id)
	if stream["is_web_public"] != true || stream["invite_only"] != false || stream["history_public_to_subscribers"] != true {
		t.Errorf("web-public channel: %v", stream)
	}
	e.expect(e.call(http.MethodGet, "/streams/"+itoa(id), &e.guest, nil), 200, success("stream", stream))
	e.expect(e.call(http.MethodGet, "/streams", &e.guest, form("include_web_public", "true")), 200, success("streams", []any{stream}))
	// A guest may mute its topics without being subscribed.
	res = e.call(http.MethodPatch, "/users/me/subscriptions/muted_topics", &e.guest, form("stream_id", itoa(id), "topic", "t", "op", "add"))
	e.expect(res, 200, success())
}

// TestChannelGroupPermissions: the channel's group settings, with direct
// members and nested subgroups, grant adding and removing subscribers and
// administering (SPEC.md operation 1).
func TestChannelGroupPermissions(t *testing.T) {
	e := newEnv(t)
	only := func(ids ...int64) string {
		s := `{"direct_members":[`
		for i, id := range ids {
			if i > 0 {
				s += ","
			}
			s += itoa(id)
		}
		return s + `],"direct_subgroups":[]}`
	}
	// Moderators (4) include administrators and owners through subgroups.
	id := e.subscribeAs(&e.owner, "club", "invite_only", "true",
		"can_add_subscribers_group", only(e.member.id),
		"can_remove_subscribers_group", "4",
		"can_administer_channel_group", `{"direct_members":[],"direct_subgroups":[4]}`)
	// The member may add others, and itself, without being subscribed.
	res := e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", `[{"name":"club"}]`, "principals", "["+itoa(e.nobody.id)+"]"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.nobody.id): []any{"club"}}, "already_subscribed", map[string]any{},
		"new_subscription_messages_sent", true))
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.member, form("subscriptions", `[{"name":"club"}]`))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.member.id): []any{"club"}}, "already_subscribed", map[string]any{},
		"new_subscription_messages_sent", true))
	// Another member may not.
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.membersOnly, form("subscriptions", `[{"name":"club"}]`))
	e.expectError(res, 400, chat.CodeBadRequest, "Unable to access channel (club).")
	// The moderator administers the channel through the nested group: it
	// sees it and may add and remove subscribers.
	e.expect(e.call(http.MethodGet, "/streams/"+itoa(id), &e.moderator, nil), 200, success("stream", e.streamObject(id)))
	res = e.call(http.MethodPost, "/users/me/subscriptions", &e.moderator, form("subscriptions", `[{"name":"club"}]`, "principals", "["+itoa(e.adminsOnly.id)+"]"))
	e.expect(res, 200, success("subscribed", map[string]any{itoa(e.adminsOnly.id): []any{"club"}}, "already_subscribed", map[string]any{},
		"new_subscription_messages_sent", true))
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `["club"]`, "principals", "["+itoa(e.nobody.id)+"]"))
	e.expectError(res, 400, chat.CodeBadRequest, "Insufficient permission")
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.moderator, form("subscriptions", `["club"]`, "principals", "["+itoa(e.nobody.id)+"]"))
	e.expect(res, 200, success("removed", []any{"club"}, "not_removed", []any{}))
	// Anyone may leave.
	res = e.call(http.MethodDelete, "/users/me/subscriptions", &e.member, form("subscriptions", `["club"]`))
	e.expect(res, 200, success("removed", []any{"club"}, "not_removed", []any{}))
}
