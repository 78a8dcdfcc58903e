package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// errPrivateAddress refuses an outgoing-webhook connection to an address
// that is not on the public Internet.
var errPrivateAddress = errors.New("outgoing webhooks may not reach private, loopback or link-local addresses")

// outgoingWebhookClient builds the HTTP client of outgoing-webhook bots
// that --outgoing-webhooks names: nil for "off"; for "public", one whose
// connections to loopback, private, link-local and other non-public
// addresses fail, so that a bot's owner cannot make the server reach the
// services of its own network; for "any", one without that check. Neither
// follows redirects, so that a public URL cannot send the request on to a
// private one.
func outgoingWebhookClient(mode string) (*http.Client, error) {
	var control func(network, address string, c syscall.RawConn) error
	switch mode {
	case "off":
		return nil, nil
	case "any":
	case "public":
		control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if a := ap.Addr().Unmap(); !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() {
				return fmt.Errorf("%w: %s", errPrivateAddress, a)
			}
			return nil
		}
	default:
		return nil, fmt.Errorf("unknown --outgoing-webhooks %q (want public, any or off)", mode)
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: control}
	transport := &http.Transport{DialContext: dialer.DialContext, Proxy: nil, MaxIdleConnsPerHost: 2,
		TLSHandshakeTimeout: 5 * time.Second, ResponseHeaderTimeout: 10 * time.Second}
	return &http.Client{Transport: transport, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}, nil
}
