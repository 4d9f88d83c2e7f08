package client_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
)

// stallingServer executes each request (counts it, reads its body) and
// then sends nothing until the client gives up, as a server does whose
// answer is stuck behind a slow commit.
func stallingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var executed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		executed.Add(1)
		_, _ = io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &executed
}

func request(t *testing.T, ctx context.Context, method, url string, header ...string) *http.Request {
	t.Helper()
	var body io.Reader
	if method != "GET" && method != "HEAD" {
		body = strings.NewReader(`{"sku":"KB101"}`)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return req
}

// TestTransportTimeoutIsNotTheCallersContext proves issue 23 item 6: a
// timeout of the transport (ResponseHeaderTimeout) while the caller still
// waits is a transport failure like a reset: a read is retried within
// MaxAttempts, a write without a key is not replayed and is to be
// verified (exit code 7), a keyed write is replayed under its key.
func TestTransportTimeoutIsNotTheCallersContext(t *testing.T) {
	for _, tc := range []struct {
		method   string
		header   []string
		executed int32
		verdict  client.Verdict
		exit     int
	}{
		{"GET", nil, 3, client.Stop, client.ExitTemporary},
		{"HEAD", nil, 3, client.Stop, client.ExitTemporary},
		{"PUT", nil, 3, client.Stop, client.ExitTemporary},
		{"DELETE", nil, 3, client.Stop, client.ExitTemporary},
		{"POST", nil, 1, client.Verify, client.ExitUnknownOutcome},
		{"PATCH", nil, 1, client.Verify, client.ExitUnknownOutcome},
		{"POST", []string{client.IdempotencyKeyHeader, "order-42"}, 3, client.Stop, client.ExitTemporary},
	} {
		for _, timeout := range []time.Duration{30 * time.Millisecond, 80 * time.Millisecond} {
			srv, executed := stallingServer(t)
			var rec recorder
			base := &http.Transport{ResponseHeaderTimeout: timeout}
			t.Cleanup(base.CloseIdleConnections)
			c := &http.Client{Transport: client.NewTransport(base, client.WithPolicy(fastPolicy), client.WithLogger(quiet), client.WithObserver(rec.observer()))}
			_, err := c.Do(request(t, context.Background(), tc.method, srv.URL, tc.header...))
			if err == nil {
				t.Fatalf("%s: no error from a stalled server", tc.method)
			}
			if n := executed.Load(); n != tc.executed {
				t.Errorf("%s %v: the server executed it %d times, want %d", tc.method, tc.header, n, tc.executed)
			}
			op := rec.last(t)
			if op.Attempts != int(tc.executed) || op.Decision.Verdict != tc.verdict {
				t.Errorf("%s %v: operation %+v", tc.method, tc.header, op)
			}
			if tc.header == nil {
				if code := client.ExitCode(tc.method, err); code != tc.exit {
					t.Errorf("%s: exit code %d, want %d (%v)", tc.method, code, tc.exit, err)
				}
			}
			if code := client.ExitCodeOf(op.Decision); code != tc.exit {
				t.Errorf("%s %v: the decision's exit code %d, want %d", tc.method, tc.header, code, tc.exit)
			}
		}
	}
}

// TestTransportCallersDeadlineAfterTheWrite: when the caller's own time
// runs out (http.Client.Timeout, a context deadline, a cancellation) after
// the request went out, nothing is retried, and a write without a key is
// still to be verified: the server may have executed it.
func TestTransportCallersDeadlineAfterTheWrite(t *testing.T) {
	for _, way := range []string{"Client.Timeout", "context deadline", "cancel"} {
		for _, tc := range []struct {
			method  string
			verdict client.Verdict
			exit    int
		}{
			{"POST", client.Verify, client.ExitUnknownOutcome},
			{"PATCH", client.Verify, client.ExitUnknownOutcome},
			{"GET", client.Stop, -1},
			{"PUT", client.Stop, -1},
		} {
			srv, executed := stallingServer(t)
			var rec recorder
			c := newClient(&rec)
			ctx := context.Background()
			// The caller's end must come after the server has the request:
			// a deadline long enough for a loaded machine to deliver it,
			// or a cancel once the server counted it.
			const deadline = 400 * time.Millisecond
			switch way {
			case "Client.Timeout":
				c.Timeout = deadline
			case "context deadline":
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, deadline)
				defer cancel()
			case "cancel":
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				go func() {
					for give := time.Now().Add(2 * time.Second); executed.Load() == 0 && time.Now().Before(give); {
						time.Sleep(time.Millisecond)
					}
					time.Sleep(20 * time.Millisecond)
					cancel()
				}()
			}
			start := time.Now()
			_, err := c.Do(request(t, ctx, tc.method, srv.URL))
			if err == nil {
				t.Fatalf("%s %s: no error", way, tc.method)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("%s %s: returned after %s", way, tc.method, took)
			}
			if n := executed.Load(); n != 1 {
				t.Errorf("%s %s: executed %d times, want once", way, tc.method, n)
			}
			op := rec.last(t)
			if op.Attempts != 1 || op.Decision.Verdict != tc.verdict {
				t.Errorf("%s %s: operation %+v", way, tc.method, op)
			}
			if tc.exit > 0 {
				if code := client.ExitCode(tc.method, err); code != tc.exit {
					t.Errorf("%s %s: exit code %d, want %d (%v)", way, tc.method, code, tc.exit, err)
				}
			} else if code := client.ExitCode(tc.method, err); code == client.ExitUnknownOutcome {
				t.Errorf("%s %s: a read is exit code 7 (%v)", way, tc.method, err)
			}
		}
	}
}

// TestTransportConnectionCutMidAnswer: the server executes the request and
// the connection ends in the middle of the answer, in its status line or
// in an error body. A read is retried; a write without a key is executed
// once and is to be verified.
func TestTransportConnectionCutMidAnswer(t *testing.T) {
	for _, cut := range []struct {
		name  string
		write string
	}{
		{"in the status line", "HTTP/1.1 50"},
		{"in the headers", "HTTP/1.1 200 OK\r\nContent-Type: appl"},
		{"in an error body", "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nContent-Length: 200\r\n\r\n{\"status\":503,\"title\":\"Ser"},
	} {
		var executed atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			executed.Add(1)
			_, _ = io.ReadAll(r.Body)
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			writeAndClose(conn, buf, cut.write)
		}))
		for _, tc := range []struct {
			method   string
			executed int32
			verdict  client.Verdict
			exit     int
		}{{"GET", 3, client.Stop, client.ExitTemporary}, {"POST", 1, client.Verify, client.ExitUnknownOutcome}} {
			executed.Store(0)
			var rec recorder
			res, err := newClient(&rec).Do(request(t, context.Background(), tc.method, srv.URL))
			if err == nil {
				err = client.ReadError(res)
				res.Body.Close()
			}
			if n := executed.Load(); n != tc.executed {
				t.Errorf("%s, %s: executed %d times, want %d", cut.name, tc.method, n, tc.executed)
			}
			if op := rec.last(t); op.Decision.Verdict != tc.verdict {
				t.Errorf("%s, %s: operation %+v", cut.name, tc.method, op)
			}
			if code := client.ExitCode(tc.method, err); code != tc.exit {
				t.Errorf("%s, %s: exit code %d, want %d (%v)", cut.name, tc.method, code, tc.exit, err)
			}
			if tc.method == "POST" && errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: a cut connection read as a deadline: %v", cut.name, err)
			}
		}
		srv.Close()
	}
}

func writeAndClose(conn io.WriteCloser, buf *bufio.ReadWriter, s string) {
	_, _ = buf.WriteString(s)
	_ = buf.Flush()
	_ = conn.Close()
}

// passedDeadline is a context in the instant http.Client.Timeout leaves
// open: its deadline has passed and Err does not say so yet, because the
// client cancels the request on a timer of its own that can fire before
// the context's.
type passedDeadline struct{ context.Context }

func (passedDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// TestTransportPassedDeadlineIsTheCallersEnd: a transport failure once the
// caller's deadline has passed ends the operation, even before the
// context reports it; retrying it sent an idempotent PUT up to three times
// after the caller's Timeout.
func TestTransportPassedDeadlineIsTheCallersEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	url := srv.URL
	srv.Close() // every attempt fails to connect: a transport error
	for _, method := range []string{"GET", "PUT", "DELETE"} {
		var rec recorder
		c := newClient(&rec)
		_, err := c.Do(request(t, passedDeadline{context.Background()}, method, url))
		if err == nil {
			t.Fatalf("%s: no error", method)
		}
		op := rec.last(t)
		if op.Attempts != 1 || op.Decision.Verdict != client.Stop {
			t.Errorf("%s: %d attempts, verdict %v; want 1 attempt, stop", method, op.Attempts, op.Decision.Verdict)
		}
	}
}
