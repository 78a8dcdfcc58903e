package chat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/teamchat/chat/internal/markdown"
	"github.com/teamchat/chat/storage"
	"github.com/teamchat/chat/storage/memory"
)

// renderingService is a service on the memory store with a render time
// budget (0 for the default) and no practical highlighting budget, whose
// heavy slots free without resting, and its organization.
func renderingService(t *testing.T, budget time.Duration) (*Service, NewOrgResult) {
	t.Helper()
	s := New(memory.New(), Config{PasswordCost: bcrypt.MinCost, RenderTimeBudget: budget, HighlightBudget: time.Hour})
	t.Cleanup(func() { _ = s.Close() })
	s.rest = func(_ time.Duration, free func()) { free() }
	org, err := s.CreateOrg(context.Background(), NewOrg{Name: "Org", Host: "org.example.com", OwnerEmail: "owner@example.com", OwnerName: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	return s, org
}

// TestRenderTimeBudget: a rendering that outlasts Config.RenderTimeBudget
// fails the send, the edit and POST /messages/render with
// ErrUnableToRender, writes nothing, is told to stop, and keeps its heavy
// slot until it has stopped; a request that ends stops it the same way.
func TestRenderTimeBudget(t *testing.T) {
	ctx := context.Background()
	s, org := renderingService(t, 10*time.Millisecond)
	owner := AsUser(org.UserID)
	to := &MessageTo{IDs: []int64{org.UserID}}
	id, err := s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: to, Content: "short"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a long message ", preRenderMinBytes/10)

	// The slow rendering waits until it is told to stop, as a rendering
	// stops at its next text.
	stopped := make(chan bool, 1)
	s.renderContent = func(rc *renderContext, content string) (markdown.Result, error) {
		for !rc.env.Stop() {
			time.Sleep(time.Millisecond)
		}
		if n := len(s.heavy); n != 1 {
			t.Errorf("%d heavy slots taken while the stopped rendering runs, want 1", n)
		}
		stopped <- true
		return markdown.Result{Stopped: true}, nil
	}
	waitStopped := func(what string) {
		t.Helper()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the rendering was never told to stop", what)
		}
		for deadline := time.Now().Add(10 * time.Second); len(s.heavy) != 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the heavy slot stayed taken after the rendering stopped", what)
			}
		}
	}

	if _, err := s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: to, Content: long}); !errors.Is(err, ErrUnableToRender) {
		t.Errorf("send: %v, want ErrUnableToRender", err)
	}
	waitStopped("send")
	if _, err := s.UpdateMessage(ctx, owner, id, MessageEdit{Content: &long}); !errors.Is(err, ErrUnableToRender) {
		t.Errorf("edit: %v, want ErrUnableToRender", err)
	}
	waitStopped("edit")
	if _, err := s.RenderMessage(ctx, owner, long); !errors.Is(err, ErrUnableToRender) {
		t.Errorf("render: %v, want ErrUnableToRender", err)
	}
	waitStopped("render")

	// A request that ends stops its rendering too, well before the budget.
	s.cfg.RenderTimeBudget = time.Hour
	ended, cancel := context.WithCancel(ctx)
	time.AfterFunc(10*time.Millisecond, cancel)
	if _, err := s.SendMessage(ended, owner, SendMessageRequest{Type: "direct", To: to, Content: long}); !errors.Is(err, context.Canceled) {
		t.Errorf("send by a request that ended: %v, want context.Canceled", err)
	}
	waitStopped("ended request")

	var contents []string
	err = s.store.View(ctx, func(tx storage.Tx) error {
		rows, err := tx.FindMessages(storage.MessageFilter{RealmID: org.RealmID, UserID: org.UserID})
		for _, r := range rows {
			contents = append(contents, r.Message.Content)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(contents) != 1 || contents[0] != "short" {
		t.Errorf("stored messages %q, want only the first, unedited", contents)
	}

	// A rendering within the budget is stored.
	s.renderContent = (*renderContext).render
	if _, err := s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: to, Content: long}); err != nil {
		t.Errorf("send within the budget: %v", err)
	}
}

// TestCodeRendersAhead: a short message with code to highlight is
// rendered before its write, whether sent, edited or previewed, at once
// while its highlighting fits the quick budget, and again in a heavy slot
// when it does not; one without code is rendered in its write.
func TestCodeRendersAhead(t *testing.T) {
	ctx := context.Background()
	s, org := renderingService(t, 0)
	owner := AsUser(org.UserID)
	to := &MessageTo{IDs: []int64{org.UserID}}
	s.quickHighlight = time.Hour // whatever the machine's load
	var inSlot []bool
	s.renderContent = func(rc *renderContext, content string) (markdown.Result, error) {
		inSlot = append(inSlot, len(s.heavy) == 1)
		return rc.render(content)
	}
	highlighted := func(what, html string) {
		t.Helper()
		if want := `<span class="n">x</span>`; !strings.Contains(html, want) {
			t.Errorf("%s: rendered %q, want it highlighted (%s)", what, html, want)
		}
	}
	code := "```python\nx = 1\n```"
	id, err := s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: to, Content: code})
	if err != nil {
		t.Fatal(err)
	}
	plain := "x = 1"
	if _, err := s.UpdateMessage(ctx, owner, id, MessageEdit{Content: &plain}); err != nil {
		t.Fatal(err)
	}
	shebang := "```\n#!/usr/bin/env python\nx = 1\n```"
	if _, err := s.UpdateMessage(ctx, owner, id, MessageEdit{Content: &shebang}); err != nil {
		t.Fatal(err)
	}
	html, err := s.RenderMessage(ctx, owner, code)
	if err != nil {
		t.Fatal(err)
	}
	highlighted("preview", html)
	if want := []bool{false, false, false}; !slices.Equal(inSlot, want) {
		t.Errorf("renderings in a heavy slot %v, want %v (the send, the second edit, the preview)", inSlot, want)
	}

	// Past the quick budget the rendering is made again in a heavy slot,
	// and that one is stored.
	s.quickHighlight = time.Nanosecond
	inSlot = nil
	id, err = s.SendMessage(ctx, owner, SendMessageRequest{Type: "direct", To: to, Content: code})
	if err != nil {
		t.Fatal(err)
	}
	if html, err = s.RenderMessage(ctx, owner, code); err != nil {
		t.Fatal(err)
	}
	highlighted("preview past the quick budget", html)
	if want := []bool{false, true, false, true}; !slices.Equal(inSlot, want) {
		t.Errorf("renderings in a heavy slot %v, want %v (the send's two, the preview's two)", inSlot, want)
	}
	m, _, err := s.GetMessage(ctx, owner, id, MessageFormat{ApplyMarkdown: true})
	if err != nil {
		t.Fatal(err)
	}
	highlighted("stored past the quick budget", m.Content)
}

// TestRenderedAhead: long content, content with code to highlight and
// content linking more than a few topics render before their write
// transaction, the rest in it.
func TestRenderedAhead(t *testing.T) {
	for content, want := range map[string]bool{
		"short":                           false,
		strings.Repeat("a", 1000):         true,
		"```python\nx\n```":               true,
		strings.Repeat("#**c>t** ", 4):    false,
		strings.Repeat("#**c>t** ", 5):    true,
		"#**c** #**c>t** #**c>u@1** text": false,
	} {
		if got := renderedAhead(content); got != want {
			t.Errorf("renderedAhead(%.40q) = %v, want %v", content, got, want)
		}
	}
}
