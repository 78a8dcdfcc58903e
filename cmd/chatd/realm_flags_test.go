package main

import (
	"slices"
	"testing"

	"github.com/teamchat/chat"
)

func TestVideoCallFlags(t *testing.T) {
	if p, err := videoCallProvider("", ""); err != nil || p != nil {
		t.Errorf("none: %v, %v", p, err)
	}
	p, err := videoCallProvider("jitsi", "https://meet.example.org")
	if err != nil || p.(chat.JitsiMeet).ServerURL != "https://meet.example.org" {
		t.Errorf("jitsi: %v, %v", p, err)
	}
	for _, c := range [][2]string{{"jitsi", ""}, {"jitsi", "meet.example.org"}, {"zoom", "https://x"}, {"", "https://x"}} {
		if _, err := videoCallProvider(c[0], c[1]); err == nil {
			t.Errorf("videoCallProvider(%q, %q) succeeded", c[0], c[1])
		}
	}
}

func TestAuthMethodsFlag(t *testing.T) {
	got, err := authenticationMethods(" password, ldap ,")
	if err != nil || !slices.Equal(got, []string{"password", "ldap"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := authenticationMethods("password,github"); err == nil {
		t.Error("unknown method accepted")
	}
}
