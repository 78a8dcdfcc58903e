package tex

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The expected renderings are the reference's, from its Markdown test
// fixtures (tex_inline, tex_fenced_math), without their paragraph.
func TestRender(t *testing.T) {
	for _, c := range []struct {
		src     string
		display bool
		want    string
	}{
		{`1 \oplus 0 = 1`, false, "testdata/inline.html"},
		{`a^2 = b^2 + c^2`, true, "testdata/display.html"},
	} {
		want, err := os.ReadFile(c.want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Render(c.src, c.display, 10*time.Second)
		if err != nil || got != string(want) {
			t.Errorf("Render(%q, %v) = %v,\n%s\nwant\n%s", c.src, c.display, err, got, want)
		}
	}
}

// TestRenderFails: what KaTeX cannot parse, a macro that expands without
// end, input nested past the call stack's bound, and a render without
// budget fail, and the engines render afterwards.
func TestRenderFails(t *testing.T) {
	for _, src := range []string{`\error{x}`, `\frac{a}`, `\def\a{\a\a}\a`,
		strings.Repeat("{", 20000) + "x" + strings.Repeat("}", 20000)} {
		if html, err := Render(src, false, 10*time.Second); err == nil || errors.Is(err, ErrBudget) {
			t.Errorf("Render(%.40q) = %.80q, %v; want KaTeX's error", src, html, err)
		}
	}
	if _, err := Render(`x^2`, false, 0); !errors.Is(err, ErrBudget) {
		t.Errorf("Render without budget: %v, want ErrBudget", err)
	}
	if _, err := Render(`x^2`, false, 10*time.Second); err != nil {
		t.Errorf("no render after the failures: %v", err)
	}
}

// TestRenderInterrupted: a render still running when its budget ends is
// interrupted, and its engine is dropped rather than reused.
func TestRenderInterrupted(t *testing.T) {
	if _, err := Render(`x`, false, 10*time.Second); err != nil { // an engine exists
		t.Fatal(err)
	}
	before := len(alive)
	// Seconds of KaTeX's work, without a macro to expand.
	long := strings.Repeat(`a^{b_{c}} + \frac{x}{y} + `, 400) + "1"
	if _, err := Render(long, true, 20*time.Millisecond); !errors.Is(err, ErrBudget) {
		t.Fatalf("Render of seconds within 20 ms: %v, want ErrBudget", err)
	}
	if len(alive) != before-1 {
		t.Errorf("%d engines after the interrupt, want %d: the interrupted one dropped", len(alive), before-1)
	}
	if got, err := Render(`1 \oplus 0 = 1`, false, 10*time.Second); err != nil || !strings.Contains(got, "⊕") {
		t.Errorf("after an interrupt: %v %.80q", err, got)
	}
}

// TestRenderConcurrent renders from more goroutines than there are
// engines.
func TestRenderConcurrent(t *testing.T) {
	want, _ := Render(`1 \oplus 0 = 1`, false, 10*time.Second)
	var wg sync.WaitGroup
	for range 3 * engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if got, err := Render(`1 \oplus 0 = 1`, false, 30*time.Second); err != nil || got != want {
					t.Errorf("concurrent render: %v %.80q", err, got)
				}
			}
		}()
	}
	wg.Wait()
	if len(alive) > engines {
		t.Errorf("%d engines, want at most %d", len(alive), engines)
	}
}
