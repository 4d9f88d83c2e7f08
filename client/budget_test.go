package client_test

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
)

// tricklingServer answers every request 503 with a problem body sent one
// byte per tick, and records when each request arrived.
type tricklingServer struct {
	mu       sync.Mutex
	arrivals []time.Time
}

func (s *tricklingServer) start(t *testing.T, tick time.Duration, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.arrivals = append(s.arrivals, time.Now())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		for i := range len(body) {
			if _, err := w.Write([]byte{body[i]}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tick):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTransportBudgetCountsErrorBodies proves issue 23 item 7: the time
// spent reading error bodies counts against MaxElapsed, and the read
// itself ends with the budget, so no attempt starts after MaxElapsed and
// RoundTrip returns soon after it, however slowly the body trickles.
func TestTransportBudgetCountsErrorBodies(t *testing.T) {
	const body = `{"status":503,"title":"Service unavailable","action":"retry","retryable":true}`
	for _, tc := range []struct {
		name       string
		tick       time.Duration
		maxElapsed time.Duration
		reader     client.Reader
		method     string
		header     []string
	}{
		// The case scaled down: each body read is cut by the
		// reader's timeout, the last one by the budget.
		{"reader timeout below the budget", 100 * time.Millisecond, 600 * time.Millisecond, client.Reader{Timeout: 250 * time.Millisecond}, "GET", nil},
		{"faster trickle", 30 * time.Millisecond, 450 * time.Millisecond, client.Reader{Timeout: 130 * time.Millisecond}, "DELETE", nil},
		// The reader's default timeout (10s) is far beyond the budget.
		{"default reader timeout", 100 * time.Millisecond, 300 * time.Millisecond, client.Reader{}, "GET", nil},
		{"keyed write", 100 * time.Millisecond, 500 * time.Millisecond, client.Reader{Timeout: 200 * time.Millisecond}, "POST", []string{client.IdempotencyKeyHeader, "k-7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s tricklingServer
			srv := s.start(t, tc.tick, body)
			var rec recorder
			pol := client.Policy{MaxAttempts: 20, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxElapsed: tc.maxElapsed}
			c := newClient(&rec, client.WithPolicy(pol), client.WithReader(tc.reader))
			start := time.Now()
			res, err := c.Do(request(t, context.Background(), tc.method, srv.URL, tc.header...))
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			s.mu.Lock()
			arrivals := append([]time.Time(nil), s.arrivals...)
			s.mu.Unlock()
			for i, at := range arrivals {
				// The server sees an attempt a little after the client
				// starts it.
				if late := at.Sub(start) - tc.maxElapsed; late > 40*time.Millisecond {
					t.Errorf("attempt %d of %d started %s after MaxElapsed %s", i+1, len(arrivals), late, tc.maxElapsed)
				}
			}
			if over := took - tc.maxElapsed; over > 150*time.Millisecond {
				t.Errorf("RoundTrip returned after %s for a budget of %s (%d attempts)", took, tc.maxElapsed, len(arrivals))
			}
			op := rec.last(t)
			if op.Attempts != len(arrivals) || op.Decision.Verdict != client.Stop || op.Decision.Reason != "the next attempt would start after the operation's deadline" {
				t.Errorf("%d executions, operation %+v", len(arrivals), op)
			}
			// Each attempt but the last spends the reader's timeout (one
			// fewer when a loaded machine makes them drift).
			readTime := cmp.Or(tc.reader.Timeout, client.DefaultReadTimeout)
			if want := int(tc.maxElapsed/readTime) + 1; len(arrivals) > want || len(arrivals) < want-1 {
				t.Errorf("%d executions, want %d", len(arrivals), want)
			}
			if code := client.ExitCodeOf(op.Decision); code != client.ExitTemporary {
				t.Errorf("exit code %d, want %d", code, client.ExitTemporary)
			}
			t.Logf("%d attempts, returned after %s", len(arrivals), took.Round(time.Millisecond))
		})
	}
}
