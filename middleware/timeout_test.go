package middleware

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const testTimeout = 50 * time.Millisecond

func TestTimeoutSlowHandler(t *testing.T) {
	cases := []struct {
		name, method, key string
		outcome, action   string
		retryable         bool
	}{
		{"GET", http.MethodGet, "", "not_committed", "retry", true},
		{"POST", http.MethodPost, "", "unknown", "verify", false},
		{"POST with Idempotency-Key", http.MethodPost, "k-123456789", "unknown", "retry", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachRouter(t, func(t *testing.T, rt router) {
				k := newKit()
				release := make(chan struct{})
				var lateErr atomic.Value
				done := make(chan struct{})
				h := rt.build(Stack(WithWriter(k.writer), WithTimeout(testTimeout)), map[string]http.HandlerFunc{
					c.method + " /slow": func(w http.ResponseWriter, r *http.Request) {
						defer close(done)
						<-r.Context().Done()
						<-release // still running when the client reads the problem
						w.Header().Set("Content-Type", "text/plain")
						w.WriteHeader(200)
						_, err := w.Write([]byte("too late"))
						lateErr.Store(err)
					},
				})
				srv := k.serve(t, h)
				req, _ := http.NewRequest(c.method, srv.URL+"/slow", strings.NewReader("x"))
				if c.key != "" {
					req.Header.Set("Idempotency-Key", c.key)
				}
				start := time.Now()
				r := do(t, req)
				close(release)
				wantProblem(t, r, 503, "timeout", map[string]any{
					"action": c.action, "outcome": c.outcome, "retryable": c.retryable,
				})
				if el := time.Since(start); el < testTimeout {
					t.Fatalf("answered after %v, before the deadline", el)
				}
				<-done
				if err, _ := lateErr.Load().(error); !errors.Is(err, http.ErrHandlerTimeout) {
					t.Fatalf("late Write returned %v", err)
				}
				if recs := waitRecords(t, k.logs, 1); recs[0]["code"] != "timeout" {
					t.Fatalf("log %v", recs)
				}
			})
		})
	}
}

// A handler that ignores its context entirely still cannot produce a second
// status line or a body-less response.
func TestTimeoutHandlerIgnoringContext(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * testTimeout)
		http.Error(w, "late failure", 500)
	})))
	r := get(t, srv.URL)
	wantProblem(t, r, 503, "timeout", nil)
	if contains(r.body, "late failure") {
		t.Fatalf("body %s", r.body)
	}
}

// A response that started before the deadline is the handler's to finish.
func TestTimeoutAfterResponseStarted(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("early;"))
		<-r.Context().Done()
		if !errors.Is(r.Context().Err(), context.DeadlineExceeded) {
			t.Errorf("ctx.Err() = %v", r.Context().Err())
		}
		w.Write([]byte("finished"))
	})))
	r := get(t, srv.URL)
	if r.StatusCode != 200 || string(r.body) != "early;finished" {
		t.Fatalf("%d %q", r.StatusCode, r.body)
	}
	if s := k.logs.String(); s != "" {
		t.Fatalf("logged %s", s)
	}
}

func TestTimeoutFastHandlerKeepsHeaders(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithTimeout(time.Second))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if w.Header().Get("X-Request-Id") == "" {
			t.Error("outer headers not visible to the handler")
		}
		w.Header().Set("X-Custom", "1")
		// Returning without writing: net/http's implicit 200.
	})))
	r := get(t, srv.URL)
	if r.StatusCode != 200 || r.Header.Get("X-Custom") != "1" || r.Header.Get("X-Request-Id") == "" {
		t.Fatalf("%d %v", r.StatusCode, r.Header)
	}
}

// A handler that honours its context returns the moment the deadline
// passes, often before the timeout's own timer runs. It must still produce
// the timeout problem, never an empty 200.
func TestTimeoutHandlerReturningOnDone(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer), WithTimeout(10*time.Millisecond)), map[string]http.HandlerFunc{
			"GET /wait": func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(time.Second):
					w.WriteHeader(http.StatusOK)
				}
			},
		})
		srv := k.serve(t, h)
		for range 30 {
			wantProblem(t, get(t, srv.URL+"/wait"), 503, "timeout", map[string]any{"outcome": "not_committed"})
		}
	})
}
