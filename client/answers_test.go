package client_test

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
)

// A problem document with a code but neither title nor detail (RFC 9457
// makes both optional) still gives a command a message: the status
// phrase, never "code: " with nothing after it.
func TestLineOfAProblemWithoutProse(t *testing.T) {
	srv := foreignServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		_, _ = io.WriteString(w, `{"status":409,"code":"conflict"}`)
	})
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got, want := client.Line(client.ReadError(res)), "conflict: Conflict"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

// Retry-After as an HTTP-date is measured against the response's own Date,
// so a client whose clock is off by an hour still waits what the server
// asked, and a foreign 503 to a write is never replayed without a key.
func TestTransportRetryAfterDateAndForeign503(t *testing.T) {
	var calls atomic.Int32
	srv := foreignServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		now := time.Now().UTC()
		w.Header().Set("Date", now.Format(http.TimeFormat))
		w.Header().Set("Retry-After", now.Add(3*time.Second).Format(http.TimeFormat))
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodGet && n > 1 {
			_, _ = io.WriteString(w, "ok")
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "<html>upstream connect error</html>")
	})
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	skewed := func() time.Time { return time.Now().Add(-time.Hour) }
	c := newClient(&recorder{}, client.WithSleep(sleep), client.WithReader(client.Reader{Now: skewed}))
	res, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || len(slept) != 1 || slept[0] < 2*time.Second || slept[0] > 4*time.Second {
		t.Errorf("GET: status %d, slept %v; want one wait of about 3s", res.StatusCode, slept)
	}
	calls.Store(0)
	rec := &recorder{}
	res = post(t, newClient(rec, client.WithSleep(sleep)), srv.URL, `{"n":1}`)
	res.Body.Close()
	if n := calls.Load(); n != 1 || rec.last(t).Decision.Verdict != client.Verify {
		t.Errorf("POST answered by a foreign 503: %d executions, verdict %s", n, rec.last(t).Decision.Verdict)
	}
}
