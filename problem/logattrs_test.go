package problem

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-go/faultline/sanitize"
)

// The remembered attribute of an error text is the one the log tier makes
// for it, whatever the order texts come in, whatever key they come under,
// for texts too long to remember, and for texts that share a slot.
func TestErrorAttrsAnswerAsTheLogTier(t *testing.T) {
	texts := []string{
		"dial postgres://app:hunter2@10.1.2.3:5432/orders: connection refused",
		"token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected",
		"line one\nforged line \u202e",
		"",
		strings.Repeat("password=hunter2 ", 100), // over textAttrMaxLen
	}
	// More texts than slots, so that some share one.
	for i := range 3 * textAttrSlots {
		texts = append(texts, fmt.Sprintf("order ord_%d: Bearer abc%ddef: refused", i, i))
	}
	var c textAttrCache
	for round := range 4 {
		for i, text := range texts {
			key := []string{"error", "hidden_detail", "path"}[(i+round)%3]
			got := c.attr(key, text)
			if got.Key != key || got.Value.Kind() != slog.KindString || got.Value.String() != sanitize.Log(text) {
				t.Fatalf("round %d: %s=%q remembered as %s=%q, the log tier makes %q", round, key, text,
					got.Key, got.Value, sanitize.Log(text))
			}
		}
	}
	remembered := 0
	for i := range c.attrs {
		if e := c.attrs[i].Load(); e != nil {
			remembered++
			if s := e.attr.Value.String(); strings.Contains(s, "hunter2") {
				t.Errorf("remembered a secret: %q", s)
			}
		}
	}
	if remembered == 0 {
		t.Error("nothing remembered: repeated texts pay the log tier every time")
	}
}

// A text seen once is not remembered: errors that never repeat do not fill
// the cache or allocate for it.
func TestErrorAttrsRememberOnTheSecondSighting(t *testing.T) {
	var c textAttrCache
	const text = "dial tcp 10.0.0.7:5432: connection refused"
	c.attr("error", text)
	for i := range c.attrs {
		if c.attrs[i].Load() != nil {
			t.Fatal("remembered after one sighting")
		}
	}
	c.attr("error", text)
	if n := testing.AllocsPerRun(100, func() { c.attr("error", text) }); n != 0 {
		t.Errorf("a remembered text costs %v allocations", n)
	}
}

// Requests on many goroutines share the cache (run with -race).
func TestErrorAttrsConcurrent(t *testing.T) {
	var c textAttrCache
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				text := fmt.Sprintf("upstream %d: token=s3cr3t%d", (g+i)%7, (g+i)%7)
				if got := c.attr("error", text).Value.String(); got != sanitize.Log(text) {
					t.Errorf("%q remembered as %q", text, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
