// Package pushrelay is the HTTP client of a push notification relay (the
// reference server's "push bouncer"): a chat.PushRelay that posts each
// notification as JSON to the relay.
//
// The protocol: POST {URL}/notify with Content-Type application/json and
// the body of chat.PushNotification; credentials, when the relay needs
// them, go in the URL's user information and are sent with HTTP Basic
// authentication. Any 2xx answer means accepted. 401 and 403 mean the relay
// refuses this server (ADMIN_ACTION_REQUIRED); other answers are relay
// errors (INTERNAL_SERVER_ERROR_ON_BOUNCER); no answer at all is
// FAILED_TO_CONNECT_BOUNCER.
package pushrelay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/teamchat/chat"
)

// Timeout bounds one request to the relay when the Client has no
// http.Client of its own.
const Timeout = 30 * time.Second

// Client is a chat.PushRelay over HTTP.
type Client struct {
	endpoint string
	user     *url.Userinfo
	http     *http.Client
}

// New returns a client of the relay at relayURL (http or https). hc nil
// means a client with Timeout.
func New(relayURL string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(relayURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("pushrelay: invalid relay URL %q", relayURL)
	}
	user := u.User
	u.User = nil
	u.Path = strings.TrimSuffix(u.Path, "/") + "/notify"
	if hc == nil {
		hc = &http.Client{Timeout: Timeout}
	}
	return &Client{endpoint: u.String(), user: user, http: hc}, nil
}

// Send posts n to the relay and classifies the failures as chat.PushRelay
// requires.
func (c *Client) Send(ctx context.Context, n chat.PushNotification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.user != nil {
		pass, _ := c.user.Password()
		req.SetBasicAuth(c.user.Username(), pass)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return chat.RelayError(chat.ErrPushFailedToConnect, err)
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return chat.RelayError(chat.ErrPushAdminActionRequired,
			fmt.Errorf("relay answered %s: %s", resp.Status, snippet))
	default:
		return chat.RelayError(chat.ErrPushRelayServerError,
			fmt.Errorf("relay answered %s: %s", resp.Status, snippet))
	}
}
