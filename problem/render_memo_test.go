package problem

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/sanitize"
)

// memoInputs are short strings of the shapes field errors and extension
// values take, secrets among them, many more than publicMemo has slots, so
// that slots are overwritten and collide.
func memoInputs() []string {
	var in []string
	for i := range 5000 {
		switch i % 5 {
		case 0:
			in = append(in, fmt.Sprintf("/lines/%d/qty", i))
		case 1:
			in = append(in, fmt.Sprintf("token=ghp_%036d", i))
		case 2:
			in = append(in, fmt.Sprintf("must be at most %d", i))
		case 3:
			in = append(in, fmt.Sprintf("SELECT * FROM t%d WHERE id = 1", i))
		default:
			in = append(in, fmt.Sprintf("postgres://u:pw%d@db:5432/x", i))
		}
	}
	return append(in, "", "a", "é\u202e", string(make([]byte, maxMemoJSON)), string(make([]byte, maxMemoJSON)))
}

// TestPublicMemoRendersAsTheTier holds the memo of public strings to the
// tier itself: from cold and warm slots, in turns that evict each other
// and from goroutines racing for the same slots, every string renders as
// sanitize.Public and appendString render it.
func TestPublicMemoRendersAsTheTier(t *testing.T) {
	in := memoInputs()
	want := make([]string, len(in))
	for i, s := range in {
		want[i] = string(appendString(nil, sanitize.Public(s)))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for i := range in {
					j := (i*7 + g + round) % len(in)
					if got := string(appendPublic(nil, in[j])); got != want[j] {
						t.Errorf("appendPublic(%q) = %s, want %s", in[j], got, want[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestPublicMemoKeepsNoCallerMemory: a slot compares against its own copy,
// so a caller that reuses its buffer for other text (a decoder's scratch
// space) never gets the first text's rendering back.
func TestPublicMemoKeepsNoCallerMemory(t *testing.T) {
	buf := []byte("/items/1/sku")
	first := string(appendPublic(nil, string(buf)))
	copy(buf, "token=ghp_x1")
	s := string(buf)
	if got, want := string(appendPublic(nil, s)), string(appendString(nil, sanitize.Public(s))); got != want || got == first {
		t.Fatalf("after reuse: %s, want %s (first %s)", got, want, first)
	}
}

// TestAppendJSONSegmentsFollowTheProblem: a resolved problem renders its
// writer's runs only while it holds their values; an occurrence given
// another outcome, retry time or detail renders those, as encoding the
// members one by one does.
func TestAppendJSONSegmentsFollowTheProblem(t *testing.T) {
	wr := NewWriter(WithBaseURI("https://errors.example.test/p/"))
	base := wr.Resolve(nil, New(ValidationFailed))
	for _, p := range []*Problem{
		base,
		base.WithOutcome(OutcomeCommitted),
		base.WithDetail("the order is closed"),
		base.WithDetail("a \"quoted\" <b> & \u2028 \xff name"),
		base.WithRetryAfter(2500 * time.Millisecond),
		base.WithErrors(FieldError{Detail: "is required", Pointer: "/sku", Code: "required"}),
	} {
		got := string(p.AppendJSON(nil))
		q := *p
		q.seg = nil
		if want := string(q.AppendJSON(nil)); got != want {
			t.Errorf("with the writer's runs:\n%s\nwithout:\n%s", got, want)
		}
		for _, r := range []*Problem{p, &q} {
			legacyRepeats(t, r.appendJSON(nil, true))
		}
	}
	legacyRepeats(t, New(NotFound).appendJSON(nil, true))
	legacyRepeats(t, (&Problem{code: "x\"<y", title: "t"}).appendJSON(nil, true))
}

// legacyRepeats checks that a legacy rendering's error and message members
// are its code and its detail (its title when it has none), as rendered.
func legacyRepeats(t *testing.T, body []byte) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	msg, ok := m["detail"]
	if !ok {
		msg = m["title"]
	}
	if m["error"] != m["code"] || m["message"] != msg {
		t.Errorf("legacy members of %s: error %q message %q", body, m["error"], m["message"])
	}
}

// FuzzPublicMemo: for any two texts rendered in turns (so that each may
// find the other's slot, or its own, warm), the memo answers as the tier.
func FuzzPublicMemo(f *testing.F) {
	f.Add("/items/60/sku", "/items/81/sku")
	f.Add("password=hunter2", "password=hunter3")
	f.Add("", "\xff\u2028")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, s := range []string{a, b, a, b} {
			if got, want := string(appendPublic(nil, s)), string(appendString(nil, sanitize.Public(s))); got != want {
				t.Fatalf("appendPublic(%q) = %s, want %s", s, got, want)
			}
		}
	})
}

// instanceInputs are paths of the shapes instances take, '&' and escapes
// and secrets among them, more than instanceMemo has slots.
func instanceInputs() []string {
	in := []string{"", "/", "/fail", "/a&b", "/q?x=1&y=2", `/"quoted"`, "/é/ü", "/%7e%zz", "//host/x",
		"/ghp_abcdefghijklmnopqrstuvwxyz0123456789", "/t/ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789",
		"/\u2028/\x00", string(make([]byte, maxMemoInstance+1))}
	for i := range 300 {
		in = append(in, fmt.Sprintf("/orders/%d/items", i), fmt.Sprintf("/s/%d&t", i))
	}
	return in
}

// TestInstanceMemoRendersAsTheTier holds the instance memo, and the plain
// verdict it keeps with each path, to the rendering itself: cold and warm
// slots, evicting each other, from racing goroutines, every instance
// renders as appendString of makePublicInstance.
func TestInstanceMemoRendersAsTheTier(t *testing.T) {
	in := instanceInputs()
	want := make([]string, len(in))
	for i, s := range in {
		want[i] = string(appendString(nil, makePublicInstance(s)))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for i := range in {
					j := (i*7 + g + round) % len(in)
					if got := string(appendPublicURI(nil, in[j])); got != want[j] {
						t.Errorf("appendPublicURI(%q) = %s, want %s", in[j], got, want[j])
						return
					}
					if got := publicInstance(in[j]); got != makePublicInstance(in[j]) {
						t.Errorf("publicInstance(%q) = %q", in[j], got)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func FuzzInstanceMemo(f *testing.F) {
	f.Add("/items/60/sku", "/a&b")
	f.Add("/\"x\"", "/\xff\u2028")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, s := range []string{a, b, a, b} {
			if got, want := string(appendPublicURI(nil, s)), string(appendString(nil, makePublicInstance(s))); got != want {
				t.Fatalf("appendPublicURI(%q) = %s, want %s", s, got, want)
			}
		}
	})
}
