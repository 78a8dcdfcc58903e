package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestOutgoingWebhookClient: "public" refuses loopback addresses and does
// not follow redirects, "any" reaches them, "off" is no client.
func TestOutgoingWebhookClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	public, err := outgoingWebhookClient("public")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := public.Post(srv.URL, "application/json", nil); !errors.Is(err, errPrivateAddress) {
		t.Errorf("public client to loopback: %v, want errPrivateAddress", err)
	}
	anyAddr, err := outgoingWebhookClient("any")
	if err != nil {
		t.Fatal(err)
	}
	res, err := anyAddr.Post(srv.URL+"/redirect", "application/json", nil)
	if err != nil {
		t.Fatalf("any client to loopback: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Errorf("redirect followed: status %d", res.StatusCode)
	}
	if c, err := outgoingWebhookClient("off"); c != nil || err != nil {
		t.Errorf("off = %v, %v", c, err)
	}
	if _, err := outgoingWebhookClient("sometimes"); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
