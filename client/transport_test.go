package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// recorder keeps the observer's reports.
type recorder struct {
	mu         sync.Mutex
	attempts   []client.AttemptReport
	operations []client.OperationReport
}

func (r *recorder) observer() client.Observer {
	return client.Observer{
		Attempt: func(a client.AttemptReport) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.attempts = append(r.attempts, a)
		},
		Operation: func(o client.OperationReport) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.operations = append(r.operations, o)
		},
	}
}

func (r *recorder) last(t *testing.T) client.OperationReport {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.operations) != 1 {
		t.Fatalf("%d operation reports, want 1", len(r.operations))
	}
	return r.operations[0]
}

var quiet = slog.New(slog.DiscardHandler)

// noSleep skips the waits of tests that are not about them.
func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// fastPolicy keeps tests quick: millisecond backoffs.
var fastPolicy = client.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, MaxElapsed: 5 * time.Second}

func newClient(rec *recorder, opts ...client.Option) *http.Client {
	opts = append([]client.Option{client.WithPolicy(fastPolicy), client.WithLogger(quiet), client.WithObserver(rec.observer())}, opts...)
	return &http.Client{Transport: client.NewTransport(nil, opts...)}
}

func post(t *testing.T, c *http.Client, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// slowWrite is a handler behind the kit's Timeout: it counts executions
// and the keys they carried, and works until the deadline has passed.
type slowWrite struct {
	executions atomic.Int32
	mu         sync.Mutex
	keys       []string
	bodies     []string
}

func (s *slowWrite) handle(_ http.ResponseWriter, r *http.Request) error {
	s.executions.Add(1)
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.bodies = append(s.bodies, string(b))
	s.mu.Unlock()
	<-r.Context().Done()
	return nil
}

func TestTransportNeverReplaysTimedOutWriteWithoutKey(t *testing.T) {
	var s slowWrite
	srv := kitServer(t, s.handle, middleware.WithRequestTimeout(20*time.Millisecond))
	var rec recorder
	res := post(t, newClient(&rec), srv.URL, `{"sku":"KB101"}`)
	if n := s.executions.Load(); n != 1 {
		t.Fatalf("the server executed the POST %d times", n)
	}
	op := rec.last(t)
	if op.Attempts != 1 || op.Decision.Verdict != client.Verify || op.Status != 503 || op.Code != "timeout" {
		t.Errorf("operation %+v", op)
	}
	err := client.ReadError(res)
	var p *problem.Problem
	if !errors.As(err, &p) || p.Code() != "timeout" || p.Outcome() != problem.OutcomeUnknown || p.CorrelationID() == "" {
		t.Fatalf("ReadError = %v", err)
	}
	if code := client.ExitCode("POST", err); code != client.ExitUnknownOutcome {
		t.Errorf("exit code %d, want %d", code, client.ExitUnknownOutcome)
	}
}

func TestTransportReplaysTimedOutWriteWithKey(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		opts   []client.Option
	}{
		{"generated key", nil, []client.Option{client.WithIdempotencyKeys()}},
		{"caller's key", []string{"Idempotency-Key", "order-7f1c"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s slowWrite
			srv := kitServer(t, s.handle, middleware.WithRequestTimeout(20*time.Millisecond))
			var rec recorder
			// The timeout's Retry-After (a second) is recorded, not slept.
			var slept []time.Duration
			sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
			opts := append([]client.Option{client.WithSleep(sleep)}, tc.opts...)
			post(t, newClient(&rec, opts...), srv.URL, `{"sku":"KB101"}`, tc.header...)
			if len(slept) != 2 || slept[0] < time.Second || slept[1] < time.Second {
				t.Errorf("waits %v, want two of at least the timeout's Retry-After", slept)
			}
			if n := s.executions.Load(); n != 3 {
				t.Fatalf("%d executions, want 3 (MaxAttempts)", n)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			for i := range s.keys {
				if s.keys[i] == "" || s.keys[i] != s.keys[0] {
					t.Errorf("attempt %d carried key %q, first %q", i+1, s.keys[i], s.keys[0])
				}
				if s.bodies[i] != `{"sku":"KB101"}` {
					t.Errorf("attempt %d body %q", i+1, s.bodies[i])
				}
			}
			if len(tc.header) > 0 && s.keys[0] != "order-7f1c" {
				t.Errorf("caller's key replaced by %q", s.keys[0])
			}
			op := rec.last(t)
			if op.Attempts != 3 || op.Decision.Verdict != client.Stop || op.Decision.Reason != "attempts exhausted" {
				t.Errorf("operation %+v", op)
			}
			if len(tc.header) == 0 && op.OperationID != s.keys[0] {
				t.Errorf("operation id %q is not the generated key %q", op.OperationID, s.keys[0])
			}
		})
	}
}

func TestTransportDoesNotModifyTheRequest(t *testing.T) {
	var s slowWrite
	srv := kitServer(t, s.handle, middleware.WithRequestTimeout(10*time.Millisecond))
	req, _ := http.NewRequest("POST", srv.URL, strings.NewReader("{}"))
	res, err := client.NewTransport(nil, client.WithIdempotencyKeys(), client.WithPolicy(fastPolicy), client.WithLogger(quiet), client.WithSleep(noSleep)).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if req.Header.Get("Idempotency-Key") != "" {
		t.Error("the caller's request gained an Idempotency-Key")
	}
}

func TestTransportWaitsAtLeastRetryAfter(t *testing.T) {
	t.Run("retry_after_ms from a kit server", func(t *testing.T) {
		var mu sync.Mutex
		var arrivals []time.Time
		srv := kitServer(t, func(w http.ResponseWriter, _ *http.Request) error {
			mu.Lock()
			arrivals = append(arrivals, time.Now())
			n := len(arrivals)
			mu.Unlock()
			if n == 1 {
				return problem.New(problem.RateLimited).WithRetryAfter(60 * time.Millisecond)
			}
			w.WriteHeader(http.StatusNoContent)
			return nil
		})
		var rec recorder
		res, err := newClient(&rec).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 204 || len(arrivals) != 2 {
			t.Fatalf("status %d after %d attempts", res.StatusCode, len(arrivals))
		}
		if gap := arrivals[1].Sub(arrivals[0]); gap < 60*time.Millisecond {
			t.Errorf("retried after %s, before retry_after_ms 60", gap)
		}
		if d := rec.attempts[0].Decision; d.Verdict != client.Retry || d.Delay < 60*time.Millisecond {
			t.Errorf("first attempt's decision %+v", d)
		}
	})
	t.Run("Retry-After header of a foreign server", func(t *testing.T) {
		var calls atomic.Int32
		srv := foreignServer(t, func(w http.ResponseWriter, _ *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "2")
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, "slow down")
				return
			}
			_, _ = io.WriteString(w, "ok")
		})
		var slept []time.Duration
		sleep := func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
		var rec recorder
		res := post(t, newClient(&rec, client.WithSleep(sleep)), srv.URL, "{}")
		if res.StatusCode != 200 || len(slept) != 1 || slept[0] < 2*time.Second {
			t.Errorf("status %d, slept %v; want one wait of at least 2s", res.StatusCode, slept)
		}
	})
}

func TestTransportUpstreamValidationApproval(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        *problem.Problem
		method   string
		attempts int32
		verdict  client.Verdict
		exit     int
	}{
		{"502 upstream", problem.New(problem.UpstreamError), "GET", 3, client.Stop, client.ExitUpstream},
		{"validation", problem.New(problem.ValidationFailed).WithErrors(problem.FieldError{Detail: "must be at least 1", Pointer: "/quantity", Code: "min"}), "POST", 1, client.FixRequest, client.ExitUsage},
		{"approval", problem.New(problem.ApprovalRequired), "POST", 1, client.WaitForApproval, client.ExitRefused},
		{"policy", problem.New(problem.PolicyDenied), "DELETE", 1, client.Stop, client.ExitRefused},
		{"unauthorized", problem.New(problem.Unauthorized), "GET", 1, client.Reauthenticate, client.ExitAuth},
		{"unavailable", problem.New(problem.Unavailable).WithRetryAfter(time.Millisecond), "GET", 3, client.Stop, client.ExitTemporary},
		{"internal", problem.New(problem.Internal), "GET", 3, client.Stop, client.ExitInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
				calls.Add(1)
				return tc.p
			})
			var rec recorder
			req, _ := http.NewRequest(tc.method, srv.URL, nil)
			res, err := newClient(&rec).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if n := calls.Load(); n != tc.attempts {
				t.Errorf("%d attempts, want %d", n, tc.attempts)
			}
			op := rec.last(t)
			if op.Decision.Verdict != tc.verdict || op.Code != string(tc.p.Code()) || op.Status != tc.p.Status() {
				t.Errorf("operation %+v", op)
			}
			perr := client.ReadError(res)
			if code := client.ExitCode(tc.method, perr); code != tc.exit {
				t.Errorf("exit code %d, want %d (%v)", code, tc.exit, perr)
			}
			var p *problem.Problem
			if !errors.As(perr, &p) || p.Code() != tc.p.Code() || len(p.Errors()) != len(tc.p.Errors()) {
				t.Errorf("ReadError = %v", perr)
			}
		})
	}
}

func TestTransportStopsAtTheDeadline(t *testing.T) {
	var calls atomic.Int32
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		calls.Add(1)
		return problem.New(problem.Unavailable).WithRetryAfter(20 * time.Millisecond)
	})
	var rec recorder
	pol := client.Policy{MaxAttempts: 1000, BaseDelay: time.Millisecond, MaxElapsed: 150 * time.Millisecond}
	start := time.Now()
	res, err := newClient(&rec, client.WithPolicy(pol)).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	took := time.Since(start)
	op := rec.last(t)
	if op.Decision.Reason != "the next attempt would start after the operation's deadline" {
		t.Errorf("ended with %+v", op.Decision)
	}
	// No retry starts after the deadline; the last attempt's own round
	// trip may end a little after it.
	if took > time.Second {
		t.Errorf("took %s for a 150ms budget", took)
	}
	if n := calls.Load(); n < 2 || n > 8 {
		t.Errorf("%d attempts in 150ms with a 20ms floor", n)
	}
}

// TestTransportHonoursContext: a caller who cancels during a wait gets
// the context's error at once, not after the wait. (A wait past the
// context's deadline is never begun: TestTransportWaitPastTheCallersDeadlineIsNotBegun.)
func TestTransportHonoursContext(t *testing.T) {
	var calls atomic.Int32
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		calls.Add(1)
		return problem.New(problem.Unavailable).WithRetryAfter(5 * time.Second)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for calls.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	var rec recorder
	start := time.Now()
	_, err := newClient(&rec, client.WithPolicy(client.Policy{MaxAttempts: 3})).Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the context's cancellation", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("returned after %s", took)
	}
	if op := rec.last(t); op.Err == nil || op.Attempts != 1 {
		t.Errorf("operation %+v", op)
	}
}

func TestTransportBodyWithoutGetBodyIsSentOnce(t *testing.T) {
	var calls atomic.Int32
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		calls.Add(1)
		return problem.New(problem.Unavailable)
	})
	// An io.Reader http.NewRequest does not know gets no GetBody.
	req, _ := http.NewRequest("PUT", srv.URL, io.MultiReader(strings.NewReader("{}")))
	var rec recorder
	res, err := newClient(&rec).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d attempts of a body that cannot be replayed", n)
	}
	if op := rec.last(t); op.Decision.Verdict != client.Stop || !strings.Contains(op.Decision.Reason, "GetBody") {
		t.Errorf("decision %+v", op.Decision)
	}
}

// TestTransportConnectionLostAfterWrite: the server reads the request and
// drops the connection. A write without a key is not replayed; a read is.
func TestTransportConnectionLostAfterWrite(t *testing.T) {
	var calls atomic.Int32
	srv := foreignServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.ReadAll(r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	for _, tc := range []struct {
		method   string
		attempts int32
		verdict  client.Verdict
	}{{"POST", 1, client.Verify}, {"GET", 3, client.Stop}} {
		calls.Store(0)
		var rec recorder
		req, _ := http.NewRequest(tc.method, srv.URL, strings.NewReader("x"))
		if tc.method == "GET" {
			req, _ = http.NewRequest(tc.method, srv.URL, nil)
		}
		_, err := newClient(&rec).Do(req)
		if err == nil {
			t.Fatalf("%s: no error from a dropped connection", tc.method)
		}
		// net/http itself retries a request that died on a reused
		// connection; what counts is this client's attempts.
		op := rec.last(t)
		if op.Attempts != int(tc.attempts) || op.Decision.Verdict != tc.verdict {
			t.Errorf("%s: operation %+v", tc.method, op)
		}
		if tc.method == "POST" && calls.Load() != 1 {
			t.Errorf("POST executed %d times", calls.Load())
		}
		if code := client.ExitCode(tc.method, err); tc.method == "POST" && code != client.ExitUnknownOutcome {
			t.Errorf("exit code %d", code)
		}
	}
}

func TestTransportConnectionRefusedIsRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var rec recorder
	_, err = newClient(&rec).Post("http://"+addr, "application/json", strings.NewReader("{}"))
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	if op := rec.last(t); op.Attempts != 3 {
		t.Errorf("a write that never reached the server: %d attempts, want 3", op.Attempts)
	}
	if code := client.ExitCode("POST", err); code != client.ExitTemporary {
		t.Errorf("exit code %d, want %d", code, client.ExitTemporary)
	}
}

func TestTransportLogs(t *testing.T) {
	var calls atomic.Int32
	srv := kitServer(t, func(w http.ResponseWriter, _ *http.Request) error {
		if calls.Add(1) == 1 {
			return problem.New(problem.Unavailable).WithRetryAfter(time.Millisecond).WithOutcome(problem.OutcomeNotStarted)
		}
		w.WriteHeader(http.StatusCreated)
		return nil
	})
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := &http.Client{Transport: client.NewTransport(nil, client.WithPolicy(fastPolicy), client.WithLogger(logger), client.WithJitter(func() float64 { return 0 }))}
	res := post(t, c, srv.URL, "{}")
	if res.StatusCode != 201 {
		t.Fatalf("status %d", res.StatusCode)
	}
	var records []map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		records = append(records, m)
	}
	if len(records) != 2 {
		t.Fatalf("%d records, want 2:\n%s", len(records), buf.String())
	}
	a, o := records[0], records[1]
	if a["msg"] != "faultline client: attempt failed" || a["level"] != "INFO" || a["attempt"] != 1.0 || a["status"] != 503.0 ||
		a["code"] != "unavailable" || a["outcome"] != "not_started" || a["verdict"] != "retry" || a["delay_ms"] != 1.0 {
		t.Errorf("attempt record %v", a)
	}
	if o["msg"] != "faultline client: operation ended" || o["attempts"] != 2.0 || o["status"] != 201.0 || o["operation_id"] != a["operation_id"] || a["operation_id"] == "" {
		t.Errorf("operation record %v", o)
	}
}
