package httpserver_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/storage/memory"
)

// clock is a settable clock for queue expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newEventsEnv is an env whose hub has a settable clock and a short
// heartbeat.
func newEventsEnv(t *testing.T) (*env, *clock, *chat.Hub) {
	t.Helper()
	clk := &clock{now: joined}
	hub := chat.NewHub(chat.HubOptions{Now: clk.Now, Heartbeat: 300 * time.Millisecond, HeartbeatJitter: time.Millisecond})
	t.Cleanup(hub.Close)
	e := newEnvWith(t, memory.New(), func(c *chat.Config) {
		c.Now = clk.Now
		c.Hub = hub
	})
	return e, clk, hub
}

// register registers a queue for a and returns its ID.
func (e *env) register(a *account, kv ...string) string {
	e.t.Helper()
	res := e.call(http.MethodPost, "/register", a, form(kv...))
	if res.status != http.StatusOK {
		e.t.Fatalf("register: %s", res.raw)
	}
	return res.body["queue_id"].(string)
}

// events fetches the events of a queue after last.
func (e *env) events(a *account, queueID string, last int, dontBlock bool) response {
	e.t.Helper()
	return e.call(http.MethodGet, "/events", a, form(
		"queue_id", queueID, "last_event_id", itoa(int64(last)), "dont_block", map[bool]string{true: "true", false: "false"}[dontBlock]))
}

func TestRegisterInitialState(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	res := e.call(http.MethodPost, "/register", &e.guest, form("fetch_event_types", `["realm_user","realm"]`, "event_types", `["typing"]`))
	if res.status != http.StatusOK {
		t.Fatalf("register: %s", res.raw)
	}
	b := res.body
	if id, _ := b["queue_id"].(string); len(id) != 36 {
		t.Errorf("queue_id %v is not a UUID", b["queue_id"])
	}
	want := map[string]any{
		"last_event_id":       float64(-1),
		"zulip_feature_level": float64(chat.FeatureLevel), "service_feature_level": float64(chat.FeatureLevel),
		"zulip_version": chat.ServiceVersion, "service_version": chat.ServiceVersion,
		"zulip_merge_base": chat.ServiceVersion, "service_merge_base": chat.ServiceVersion,
		"realm_name": "Test Org", "realm_url": "http://localhost:9991", "realm_uri": "http://localhost:9991",
		"realm_empty_topic_display_name": "general chat",
		"max_stream_name_length":         float64(60), "max_stream_description_length": float64(1024),
		"max_topic_length": float64(60), "max_message_length": float64(10000),
		"max_channel_folder_name_length": float64(60), "max_channel_folder_description_length": float64(1024),
		"max_bulk_new_subscription_messages": float64(100), "max_file_upload_size_mib": float64(100),
		"server_report_message_types": []any{
			map[string]any{"key": "spam", "name": "Spam"},
			map[string]any{"key": "harassment", "name": "Harassment"},
			map[string]any{"key": "inappropriate", "name": "Inappropriate content"},
			map[string]any{"key": "norms", "name": "Violates community norms"},
			map[string]any{"key": "other", "name": "Other reason"},
		},
		"server_typing_started_expiry_period_milliseconds": float64(45000),
		"server_typing_stopped_wait_period_milliseconds":   float64(12000),
		"server_typing_started_wait_period_milliseconds":   float64(30000),
		"event_queue_longpoll_timeout_seconds":             float64(90),
		"user_id":                                          float64(e.guest.id),
		"email":                                            e.guest.email,
		"delivery_email":                                   e.guest.email,
		"full_name":                                        "Gus Guest",
		"is_admin":                                         false, "is_owner": false, "is_moderator": false, "is_guest": true,
	}
	for k, v := range want {
		if diff := cmp.Diff(v, b[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	// The user lists are the GET /users objects without is_active, with
	// profile_data for humans, split by activity.
	members := e.members(chat.RoleGuest)
	var active []any
	for _, m := range members {
		u := m.(map[string]any)
		delete(u, "is_active")
		if u["is_bot"] == false {
			u["profile_data"] = map[string]any{}
		}
		active = append(active, u)
	}
	if diff := cmp.Diff(active, b["realm_users"]); diff != "" {
		t.Errorf("realm_users (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{}, b["realm_non_active_users"]); diff != "" {
		t.Errorf("realm_non_active_users (-want +got):\n%s", diff)
	}
}

func TestRegisterFetchesOnlyWhatIsAsked(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	res := e.call(http.MethodPost, "/register", &e.member, form("event_types", `["realm"]`))
	if _, ok := res.body["realm_users"]; ok {
		t.Errorf("realm_user block sent for event_types [realm]")
	}
	if _, ok := res.body["realm_name"]; !ok {
		t.Errorf("realm block missing")
	}
}

func TestRegisterErrors(t *testing.T) {
	e, _, hub := newEventsEnv(t)
	cases := []struct{ key, value, msg string }{
		{"narrow", `[["search","x"]]`, "Operator search not supported."},
		{"narrow", `[["is","followed"]]`, "Operand followed not supported."},
		{"narrow", `[["stream"]]`, "narrow[0] should have exactly 2 items"},
		{"narrow", `{"a":1}`, "narrow is not a list"},
		{"event_types", `"message"`, "event_types is not a list"},
		{"event_types", `[1]`, "event_types[0] is not a string"},
		{"client_capabilities", `[]`, "client_capabilities is not a dict"},
		{"client_capabilities", `{"bulk_message_deletion":1}`, `client_capabilities["bulk_message_deletion"] is not a boolean`},
		{"queue_lifespan_secs", `"600"`, "queue_lifespan_secs is not an integer"},
	}
	for _, c := range cases {
		res := e.call(http.MethodPost, "/register", &e.member, form(c.key, c.value))
		e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, c.msg)
	}
	if n := hub.QueueCount(); n != 0 {
		t.Errorf("%d queues left by failed registrations", n)
	}
}

func TestLongPollDeliversAnotherUsersAction(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	queue := e.register(&e.member)
	done := make(chan response)
	go func() { done <- e.events(&e.member, queue, -1, false) }()
	time.Sleep(50 * time.Millisecond) // let the poll start waiting
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.admin.id), e.guest.id); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{
			map[string]any{"id": float64(0), "type": "realm_user", "op": "update",
				"person": map[string]any{"user_id": float64(e.guest.id), "is_active": false}},
		}))
		// The exact bytes of an event: "id" first.
		want := `{"result":"success","msg":"","events":[{"id":0,"op":"update","person":{"is_active":false,"user_id":` +
			itoa(e.guest.id) + `},"type":"realm_user"}],"queue_id":"` + queue + "\"}\n"
		if res.raw != want {
			t.Errorf("raw answer\n got %s\nwant %s", res.raw, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the long-poll did not return")
	}
	// Acknowledged events are not delivered again.
	res := e.events(&e.member, queue, 0, true)
	e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{}))
}

func TestEventsGoOnlyToRecipients(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	other, err := e.svc.CreateOrg(context.Background(), chat.NewOrg{
		Name: "Other", Host: "other.example.com", OwnerEmail: "boss@other.example.com", OwnerName: "Other Boss"})
	if err != nil {
		t.Fatal(err)
	}
	outsider := account{other.UserID, other.Email, other.APIKey}
	req := e.request(http.MethodPost, "/register", &outsider, nil)
	req.Host = "other.example.com"
	outsiderQueue := e.do(req).body["queue_id"].(string)
	moderatorQueue := e.register(&e.moderator)

	// A direct typing notification from the member to the guest.
	res := e.call(http.MethodPost, "/typing", &e.member, form("op", "start", "to", "["+itoa(e.guest.id)+"]"))
	e.expect(res, http.StatusOK, success())
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.admin.id), e.nobody.id); err != nil {
		t.Fatal(err)
	}

	req = e.request(http.MethodGet, "/events", &outsider, form("queue_id", outsiderQueue, "last_event_id", "-1", "dont_block", "true"))
	req.Host = "other.example.com"
	e.expect(e.do(req), http.StatusOK, success("queue_id", outsiderQueue, "events", []any{}))

	// The moderator sees the deactivation but not the others' typing.
	res = e.events(&e.moderator, moderatorQueue, -1, true)
	events := res.body["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["type"] != "realm_user" {
		t.Errorf("moderator's events: %s", res.raw)
	}
}

func TestTypingEvent(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	guestQueue := e.register(&e.guest, "event_types", `["typing"]`)
	memberQueue := e.register(&e.member, "event_types", `["typing"]`)
	res := e.call(http.MethodPost, "/typing", &e.member, form("type", "direct", "op", "stop", "to", "["+itoa(e.guest.id)+"]"))
	e.expect(res, http.StatusOK, success())
	want := map[string]any{
		"id": float64(0), "type": "typing", "op": "stop", "message_type": "direct",
		"sender": map[string]any{"user_id": float64(e.member.id), "email": e.member.email},
		"recipients": []any{
			map[string]any{"user_id": float64(e.member.id), "email": e.member.email},
			map[string]any{"user_id": float64(e.guest.id), "email": e.guest.email},
		},
	}
	for _, q := range []struct {
		a     *account
		queue string
	}{{&e.guest, guestQueue}, {&e.member, memberQueue}} {
		res := e.events(q.a, q.queue, -1, true)
		e.expect(res, http.StatusOK, success("queue_id", q.queue, "events", []any{want}))
	}
}

func TestTypingErrors(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	guest := "[" + itoa(e.guest.id) + "]"
	cases := []struct {
		form []string
		code chat.Code
		msg  string
	}{
		{[]string{"to", guest}, chat.CodeRequestVariableMissing, "Missing 'op' argument"},
		{[]string{"op", "begin", "to", guest}, chat.CodeBadRequest, "Invalid op"},
		{[]string{"type", "private", "op", "start", "to", guest}, chat.CodeBadRequest, "Invalid type"},
		{[]string{"op", "start"}, chat.CodeBadRequest, "Missing 'to' argument"},
		{[]string{"op", "start", "to", "[]"}, chat.CodeBadRequest, "Empty 'to' list"},
		{[]string{"op", "start", "to", "[9999]"}, chat.CodeBadRequest, "Invalid user ID 9999"},
		{[]string{"op", "start", "to", `[1,"2"]`}, chat.CodeBadRequest, "to[1] is not an integer"},
		{[]string{"op", "start", "to", `5`}, chat.CodeBadRequest, "to is not a list"},
	}
	for _, c := range cases {
		res := e.call(http.MethodPost, "/typing", &e.member, form(c.form...))
		if c.code == chat.CodeRequestVariableMissing {
			e.expectError(res, http.StatusBadRequest, c.code, c.msg, "var_name", "op")
			continue
		}
		e.expectError(res, http.StatusBadRequest, c.code, c.msg)
	}
}

func TestEventQueueErrors(t *testing.T) {
	e, clk, _ := newEventsEnv(t)
	queue := e.register(&e.member)
	bad := func(res response, id string) {
		t.Helper()
		e.expectError(res, http.StatusBadRequest, chat.CodeBadEventQueueID, "Bad event queue ID: "+id, "queue_id", id)
	}
	bad(e.events(&e.member, "no-such-queue", -1, true), "no-such-queue")
	bad(e.events(&e.guest, queue, -1, true), queue) // another user's queue

	res := e.call(http.MethodGet, "/events", &e.member, form("last_event_id", "-1"))
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "Missing 'queue_id' argument")
	res = e.call(http.MethodGet, "/events", &e.member, form("queue_id", queue))
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "Missing 'last_event_id' argument")
	res = e.events(&e.member, queue, 7, true)
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "Event 7 was not in this queue")

	// Two events, both acknowledged; an older acknowledgement fails.
	for range 2 {
		e.call(http.MethodPost, "/typing", &e.guest, form("op", "start", "to", "["+itoa(e.member.id)+"]"))
	}
	e.events(&e.member, queue, 1, true)
	res = e.events(&e.member, queue, 0, true)
	e.expectError(res, http.StatusBadRequest, chat.CodeBadRequest, "An event newer than 0 has already been pruned!")

	// A queue without a client for ten minutes is gone.
	clk.advance(10*time.Minute + time.Second)
	bad(e.events(&e.member, queue, 1, true), queue)

	// DELETE /events removes a queue.
	queue = e.register(&e.member)
	res = e.call(http.MethodDelete, "/events", &e.member, form("queue_id", queue))
	e.expect(res, http.StatusOK, success())
	bad(e.events(&e.member, queue, -1, true), queue)
	res = e.call(http.MethodDelete, "/events", &e.member, nil)
	e.expectError(res, http.StatusBadRequest, chat.CodeRequestVariableMissing, "Missing 'queue_id' argument", "var_name", "queue_id")
}

func TestQueueLifespanAndConnectedPolls(t *testing.T) {
	e, clk, _ := newEventsEnv(t)
	queue := e.register(&e.member, "queue_lifespan_secs", "3600")
	clk.advance(30 * time.Minute)
	res := e.events(&e.member, queue, -1, true)
	e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{}))
}

func TestHeartbeat(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	queue := e.register(&e.member, "event_types", `["message"]`)
	start := time.Now()
	res := e.events(&e.member, queue, -1, false)
	// Heartbeats bypass the event-type filter.
	e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{
		map[string]any{"id": float64(0), "type": "heartbeat"},
	}))
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("heartbeat after %v, before the heartbeat delay", d)
	}
}

func TestSecondPollAnswersTheHeldOne(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	queue := e.register(&e.member)
	first := make(chan response)
	go func() { first <- e.events(&e.member, queue, -1, false) }()
	time.Sleep(50 * time.Millisecond)
	second := e.events(&e.member, queue, -1, true)
	e.expect(second, http.StatusOK, success("queue_id", queue, "events", []any{}))
	select {
	case res := <-first:
		e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{}))
	case <-time.After(time.Second):
		t.Fatal("the held poll was not answered")
	}
}

func TestEventTypeFilter(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	queue := e.register(&e.member, "event_types", `["typing"]`)
	if err := e.svc.DeactivateUser(context.Background(), chat.AsUser(e.admin.id), e.guest.id); err != nil {
		t.Fatal(err)
	}
	res := e.events(&e.member, queue, -1, true)
	e.expect(res, http.StatusOK, success("queue_id", queue, "events", []any{}))
}

func TestListen(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, events, err := e.svc.Listen(ctx, chat.AsUser(e.member.id), chat.RegisterRequest{EventTypes: []string{"realm_user"}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		e.svc.DeactivateUser(context.Background(), chat.AsUser(e.admin.id), e.guest.id)
	}()
	for ev, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == "heartbeat" {
			continue
		}
		want := `{"op":"update","person":{"is_active":false,"user_id":` + itoa(e.guest.id) + `},"type":"realm_user"}`
		if ev.ID != 0 || ev.Type != "realm_user" || string(ev.Data) != want {
			t.Errorf("event %d %s %s", ev.ID, ev.Type, ev.Data)
		}
		break
	}
}

func TestRegisterStateBlocks(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	call := func(method, path string, a *account, kv ...string) {
		t.Helper()
		if res := e.call(method, path, a, form(kv...)); res.status != http.StatusOK {
			t.Fatalf("%s %s: %s", method, path, res.raw)
		}
	}
	call(http.MethodPost, "/users/me/subscriptions", &e.member, "subscriptions", `[{"name":"Alpha"},{"name":"beta"}]`)
	call(http.MethodPost, "/users/me/subscriptions", &e.owner, "subscriptions", `[{"name":"Gamma"}]`, "is_default_stream", "true")
	call(http.MethodPatch, "/users/me/subscriptions/muted_topics", &e.member, "stream", "Alpha", "topic", "lunch", "op", "add")
	call(http.MethodPost, "/realm/filters", &e.admin, "pattern", `#(?P<id>[0-9]+)`, "url_template", "https://tracker.example/{id}")
	call(http.MethodPost, "/users/me/status", &e.member, "status_text", "in a meeting", "away", "true")
	call(http.MethodPost, "/realm/domains", &e.owner, "domain", "example.com", "allow_subdomains", "false")

	res := e.call(http.MethodPost, "/register", &e.member, form("client_capabilities", `{"linkifier_url_template":true}`))
	if res.status != http.StatusOK {
		t.Fatalf("register: %s", res.raw)
	}
	b := res.body
	names := func(key string) []any {
		var out []any
		for _, c := range b[key].([]any) {
			out = append(out, c.(map[string]any)["name"])
		}
		return out
	}
	if diff := cmp.Diff([]any{"Alpha", "beta"}, names("subscriptions")); diff != "" {
		t.Errorf("subscriptions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"Gamma"}, names("never_subscribed")); diff != "" {
		t.Errorf("never_subscribed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"Alpha", "Gamma", "beta"}, names("streams")); diff != "" {
		t.Errorf("streams (-want +got):\n%s", diff)
	}
	gamma := b["never_subscribed"].([]any)[0].(map[string]any)["stream_id"]
	alpha := b["subscriptions"].([]any)[0].(map[string]any)["stream_id"]
	checks := map[string]any{
		"unsubscribed":          []any{},
		"realm_default_streams": []any{gamma},
		"realm_filters":         []any{},
		"realm_domains":         []any{map[string]any{"domain": "example.com", "allow_subdomains": false}},
		"user_status": map[string]any{
			itoa(e.member.id): map[string]any{"away": true, "status_text": "in a meeting"},
		},
		"realm_user_settings_defaults":             map[string]any{"email_address_visibility": float64(1), "presence_enabled": true},
		"channel_folders":                          []any{},
		"has_videocall_token":                      false,
		"custom_profile_fields":                    []any{},
		"realm_moderation_request_channel_id":      float64(-1),
		"realm_new_stream_announcements_stream_id": float64(-1),
		"realm_allow_message_editing":              true,
		"realm_message_content_edit_limit_seconds": float64(600),
		"realm_default_language":                   "en",
		"realm_default_code_block_language":        "",
	}
	for k, want := range checks {
		if diff := cmp.Diff(want, b[k]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	topics := b["user_topics"].([]any)
	if len(topics) != 1 {
		t.Fatalf("user_topics: %v", topics)
	}
	ut := topics[0].(map[string]any)
	if ut["stream_id"] != alpha || ut["topic_name"] != "lunch" || ut["visibility_policy"] != float64(1) {
		t.Errorf("user_topics: %v", ut)
	}
	if _, ok := b["muted_topics"]; ok {
		t.Errorf("muted_topics sent along with user_topics")
	}
	if got := len(b["realm_user_groups"].([]any)); got != 8 {
		t.Errorf("%d user groups, want the 8 system groups", got)
	}
	if got := b["custom_profile_field_types"].(map[string]any)["PRONOUNS"]; !cmp.Equal(got, map[string]any{"id": float64(8), "name": "Pronouns"}) {
		t.Errorf("custom_profile_field_types PRONOUNS = %v", got)
	}
	links := b["realm_linkifiers"].([]any)
	if len(links) != 1 || links[0].(map[string]any)["url_template"] != "https://tracker.example/{id}" {
		t.Errorf("realm_linkifiers: %v", links)
	}

	// Without the capability, linkifiers are not sent; muted_topics comes
	// alone when user_topic is not asked for.
	res = e.call(http.MethodPost, "/register", &e.member, form("fetch_event_types", `["realm_linkifiers","muted_topics"]`))
	if diff := cmp.Diff([]any{}, res.body["realm_linkifiers"]); diff != "" {
		t.Errorf("realm_linkifiers without the capability (-want +got):\n%s", diff)
	}
	muted := res.body["muted_topics"].([]any)
	if len(muted) != 1 || muted[0].([]any)[0] != "Alpha" || muted[0].([]any)[1] != "lunch" {
		t.Errorf("muted_topics: %v", muted)
	}
}

// A user created over POST /users reaches every queue as a realm_user add
// event whose person is what GET /users/{id} shows the queue's owner
// without client_gravatar (the reference assumes no client support there).
func TestUserCreationEvent(t *testing.T) {
	e, _, _ := newEventsEnv(t)
	queue := e.register(&e.member, "event_types", `["realm_user"]`)
	res := e.call(http.MethodPost, "/users", &e.admin, form("email", "newbie@example.com", "password", "long enough", "full_name", "New Bie"))
	if res.status != http.StatusOK {
		t.Fatalf("create: %s", res.raw)
	}
	id := int64(res.body["user_id"].(float64))
	person := e.call(http.MethodGet, "/users/"+itoa(id), &e.member, form("include_custom_profile_fields", "true", "client_gravatar", "false")).body["user"]
	e.expect(e.events(&e.member, queue, -1, true), http.StatusOK, success("queue_id", queue, "events", []any{
		map[string]any{"id": float64(0), "type": "realm_user", "op": "add", "person": person},
	}))
}
