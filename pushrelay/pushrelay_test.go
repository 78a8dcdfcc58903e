package pushrelay_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/teamchat/chat"
	"github.com/teamchat/chat/pushrelay"
)

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "relay.example", "ftp://relay.example", "http://", "http://%zz"} {
		if _, err := pushrelay.New(u, nil); err == nil {
			t.Errorf("New(%q) succeeded", u)
		}
	}
}

func TestSend(t *testing.T) {
	var path, user string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		user, _, _ = r.BasicAuth()
		w.WriteHeader(status)
	}))
	defer srv.Close()
	c, err := pushrelay.New(srv.URL+"/base", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Send(ctx, chat.PushNotification{UserID: 1}); err != nil || path != "/base/notify" || user != "" {
		t.Errorf("Send: %v, path %q, user %q", err, path, user)
	}
	for code, want := range map[int]*chat.Error{
		http.StatusUnauthorized:        chat.ErrPushAdminActionRequired,
		http.StatusForbidden:           chat.ErrPushAdminActionRequired,
		http.StatusBadRequest:          chat.ErrPushRelayServerError,
		http.StatusInternalServerError: chat.ErrPushRelayServerError,
		http.StatusBadGateway:          chat.ErrPushRelayServerError,
	} {
		status = code
		if err := c.Send(ctx, chat.PushNotification{}); !errors.Is(err, want) {
			t.Errorf("relay answering %d: %v, want %v", code, err, want)
		}
	}
	// A canceled request never reaches the relay.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Send(canceled, chat.PushNotification{}); !errors.Is(err, chat.ErrPushFailedToConnect) {
		t.Errorf("canceled: %v", err)
	}
}
