package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/faultline-go/faultline/internal/testlog"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/httprate"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

// recorder is an Observer that keeps what it is told, as text.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, s)
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func (r *recorder) observer() ratelimit.Observer {
	return ratelimit.Observer{
		OnDecision: func(ctx context.Context, d ratelimit.Decision) {
			if ctx.Value(probeKey{}) == nil {
				r.add("no request context")
			}
			r.add(fmt.Sprintf("%s %s fallback=%v", d.Policy, d.Outcome, d.Fallback))
		},
		OnRedisHealth: func(_ context.Context, err error) {
			r.add(fmt.Sprintf("healthy=%v err=%v", err == nil, err != nil))
		},
	}
}

type probeKey struct{}

func TestObserverSeesDecisionsAndTransitions(t *testing.T) {
	rs := redistest.Start(t)
	var rec recorder
	var logs testlog.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	l, err := ratelimit.New([]ratelimit.Policy{
		{Name: "wide", Limit: 100, Window: time.Hour, Key: httprate.Key("secret-api-key")},
		{Name: "narrow", Limit: 2, Window: time.Hour, Key: httprate.Key("secret-api-key")},
	}, ratelimit.WithRedis(newRedisClient(t, rs.Addr())), ratelimit.WithObserver(rec.observer()),
		ratelimit.WithRedisTimeout(testTimeout), ratelimit.WithProbeInterval(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	// A middleware puts a value in the context, to check the observer gets
	// the request's own.
	h := withWriter(problem.NewWriter(problem.WithLogger(logger)), l.Handler)(okHandler)
	srv, _ := serve(t, httpHandlerWithValue(h))

	for range 3 {
		get(t, srv.URL, nil)
	}
	rs.Kill()
	get(t, srv.URL, nil)
	rs.Restart()
	// The first probe after the restart can meet a connection the pool kept
	// from before it; the next probe (50ms on) then succeeds. Each failed
	// probe is one more request counted in the fallback, dropped below.
	for i := 0; i < 40 && !slices.Contains(rec.list(), "healthy=true err=false"); i++ {
		time.Sleep(60 * time.Millisecond)
		get(t, srv.URL, nil)
	}

	want := []string{
		"wide allowed fallback=false", "narrow allowed fallback=false",
		"wide allowed fallback=false", "narrow allowed fallback=false",
		"wide allowed fallback=false", "narrow limited fallback=false",
		"healthy=false err=true",
		"wide allowed fallback=true", "narrow limited fallback=true",
		"healthy=true err=false",
		"wide allowed fallback=false", "narrow limited fallback=false",
	}
	if got := collapseFallbackRepeats(rec.list()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("observed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Transitions are logged once each, with durations a person can read.
	var down, up map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not one JSON record per line: %q", line)
		}
		switch msg, _ := rec["msg"].(string); {
		case strings.Contains(msg, "redis unreachable"):
			down = rec
		case strings.Contains(msg, "reachable again"):
			up = rec
		}
	}
	if down["probe_interval"] != "50ms" || down["level"] != "WARN" {
		t.Errorf("outage record: %v", down)
	}
	if s, _ := up["outage"].(string); !strings.HasSuffix(s, "ms") && !strings.HasSuffix(s, "s") {
		t.Errorf("recovery record: %v", up)
	}
	if strings.Contains(logs.String(), "secret-api-key") {
		t.Errorf("the key reached the log:\n%s", logs.String())
	}
}

func TestOutcomeNames(t *testing.T) {
	for o, want := range map[ratelimit.Outcome]string{ratelimit.Allowed: "allowed", ratelimit.Limited: "limited", ratelimit.Unavailable: "unavailable"} {
		if string(o) != want {
			t.Errorf("%q, want %q", o, want)
		}
	}
}

func TestObserverSeesFailClosedRefusals(t *testing.T) {
	rs := redistest.Start(t)
	var rec recorder
	in := newInstance(t, rs.Addr(), []ratelimit.Policy{{Name: "closed", Limit: 5, Window: time.Hour, Key: httprate.Key("k")}},
		ratelimit.WithFailClosed(), ratelimit.WithRedisTimeout(testTimeout),
		ratelimit.WithObserver(ratelimit.Observer{OnDecision: func(_ context.Context, d ratelimit.Decision) {
			rec.add(fmt.Sprintf("%s %s fallback=%v", d.Policy, d.Outcome, d.Fallback))
		}}))
	rs.Kill()
	if resp, _ := get(t, in.url, nil); resp.StatusCode != 503 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := rec.list(); len(got) != 1 || got[0] != "closed unavailable fallback=true" {
		t.Errorf("observed %q", got)
	}
}

func httpHandlerWithValue(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), probeKey{}, true)))
	})
}

// collapseFallbackRepeats drops a fallback pair that repeats the one before
// it: how many requests the outage spans depends on the machine's speed,
// what is observed for each does not.
func collapseFallbackRepeats(events []string) []string {
	var out []string
	for i := 0; i < len(events); i++ {
		if i >= 2 && i+1 < len(events) && strings.Contains(events[i], "fallback=true") &&
			events[i] == events[i-2] && events[i+1] == events[i-1] {
			i++
			continue
		}
		out = append(out, events[i])
	}
	return out
}
