package httpserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// GET /realm/emoji lists the organization's custom emoji by ID, as the
// register's realm_emoji block does.
func TestRealmEmojiRoute(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	party, err := e.svc.ProvisionRealmEmoji(ctx, 1, "party-parrot", e.admin.id)
	if err != nil {
		t.Fatal(err)
	}
	old, err := e.svc.ProvisionRealmEmoji(ctx, 1, "retired_custom", 0)
	if err != nil {
		t.Fatal(err)
	}
	emoji := map[string]any{
		itoa(party): map[string]any{"id": itoa(party), "name": "party-parrot", "source_url": "", "still_url": nil,
			"deactivated": false, "author_id": float64(e.admin.id)},
		itoa(old): map[string]any{"id": itoa(old), "name": "retired_custom", "source_url": "", "still_url": nil,
			"deactivated": false, "author_id": nil},
	}
	e.expect(e.call(http.MethodGet, "/realm/emoji", &e.guest, nil), http.StatusOK, success("emoji", emoji))
	res := e.call(http.MethodPost, "/register", &e.member, form("fetch_event_types", `["realm_emoji"]`))
	if diff := cmp.Diff(any(emoji), res.body["realm_emoji"]); diff != "" {
		t.Errorf("register realm_emoji (-want +got):\n%s", diff)
	}
}
