package middleware

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

const testTimeout = 50 * time.Millisecond

func TestTimeoutSlowHandler(t *testing.T) {
	cases := []struct {
		name, method, key string
		outcome           string
		retryable         bool
	}{
		{"GET", http.MethodGet, "", "not_committed", true},
		{"POST", http.MethodPost, "", "unknown", false},
		{"POST with Idempotency-Key", http.MethodPost, "k-123456789", "unknown", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachRouter(t, func(t *testing.T, rt router) {
				k := newKit()
				release := make(chan struct{})
				var lateErr atomic.Value
				done := make(chan struct{})
				h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout)), map[string]http.HandlerFunc{
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
				action := "retry"
				if !c.retryable {
					action = "verify"
				}
				wantProblem(t, r, 503, "timeout", map[string]any{
					"action": action, "outcome": c.outcome, "retryable": c.retryable,
				})
				if el := time.Since(start); el < testTimeout {
					t.Fatalf("answered after %v, before the deadline", el)
				}
				<-done
				if err, _ := lateErr.Load().(error); !errors.Is(err, http.ErrHandlerTimeout) {
					t.Fatalf("late Write returned %v", err)
				}
				if recs := waitRecords(t, k.logs, 1); recs[0]["code"] != "timeout" || recs[0]["timeout"] != testTimeout.String() {
					t.Fatalf("log %v, want code timeout and the deadline as text (%s)", recs, testTimeout)
				}
			})
		})
	}
}

// A handler that ignores its context entirely still cannot produce a second
// status line or a body-less response.
func TestTimeoutHandlerIgnoringContext(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Twenty deadlines: the timer's goroutine must have run by then even
		// on a loaded machine (three once lost that race under load).
		time.Sleep(20 * testTimeout)
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
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	// The client may have a response cut short: the operator learns of the
	// deadline from one record under the request's correlation ID.
	recs := k.logs.records(t)
	if len(recs) != 1 || recs[0]["code"] != "timeout" || recs[0]["response_started"] != true ||
		recs[0]["correlation_id"] != r.Header.Get("X-Request-Id") || recs[0]["written_by"] != "faultline.timeout" {
		t.Fatalf("want one timeout record for the started response, got %v", recs)
	}
}

func TestTimeoutFastHandlerKeepsHeaders(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(time.Second))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(10*time.Millisecond)), map[string]http.HandlerFunc{
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

// A client that uploads slowly gets the timeout problem at the deadline,
// while the handler is still blocked reading the body, whether the body has
// a Content-Length or is chunked; exactly one record is logged.
func TestTimeoutAnswersDuringSlowUpload(t *testing.T) {
	const deadline = 300 * time.Millisecond
	for name, framing := range map[string]struct {
		header string
		chunk  string
	}{
		"content-length": {"Content-Length: 100000\r\n", "x"},
		"chunked":        {"Transfer-Encoding: chunked\r\n", "1\r\nx\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			forEachRouter(t, func(t *testing.T, rt router) {
				k := newKit()
				readErr := make(chan error, 1)
				h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(deadline)), map[string]http.HandlerFunc{
					"POST /upload": func(w http.ResponseWriter, r *http.Request) {
						_, err := io.ReadAll(r.Body)
						readErr <- err
						if err != nil {
							// As bind would: the failed read becomes a
							// problem, which must not be a second record.
							k.writer.Write(w, r, k.writer.FromError(err))
						}
					},
				})
				srv := k.serve(t, h)
				conn, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				if _, err := io.WriteString(conn, "POST /upload HTTP/1.1\r\nHost: test\r\n"+framing.header+"\r\n"); err != nil {
					t.Fatal(err)
				}
				stop := make(chan struct{})
				trickled := make(chan struct{})
				go func() {
					defer close(trickled)
					tick := time.NewTicker(20 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
							if _, err := io.WriteString(conn, framing.chunk); err != nil {
								return
							}
						}
					}
				}()
				defer func() { close(stop); <-trickled }()
				start := time.Now()
				conn.SetReadDeadline(start.Add(3 * time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("no answer while uploading: %v", err)
				}
				body, _ := io.ReadAll(resp.Body)
				elapsed := time.Since(start)
				wantProblem(t, response{resp, body}, 503, "timeout", map[string]any{"outcome": "unknown", "retryable": false})
				if elapsed > deadline+time.Second {
					t.Fatalf("answered after %v, deadline %v", elapsed, deadline)
				}
				select {
				case err := <-readErr:
					if err == nil {
						t.Fatal("the handler's read of the unfinished body succeeded")
					}
				case <-time.After(2 * time.Second):
					t.Fatal("the handler is still blocked reading the body")
				}
				// The handler's own problem after the deadline is refused
				// silently: the timeout is the one record.
				time.Sleep(50 * time.Millisecond)
				if recs := k.logs.records(t); len(recs) != 1 || recs[0]["code"] != "timeout" {
					t.Fatalf("log records: %v", recs)
				}
			})
		})
	}
}

// A trailer set after the body on the header map the handler took before
// writing reaches the client under a timeout, as it does on bare net/http.
func TestTimeoutKeepsTrailers(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		srv := k.serve(t, rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(time.Second)), map[string]http.HandlerFunc{
			"GET /sum": func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				h.Set("Trailer", "X-Checksum")
				h.Set("Content-Type", "text/plain")
				w.WriteHeader(200)
				w.Write([]byte("payload"))
				w.(http.Flusher).Flush()
				h.Set("X-Checksum", "c0ffee")
				h.Set(http.TrailerPrefix+"X-Rows", "1")
			},
		}))
		r := get(t, srv.URL+"/sum")
		if string(r.body) != "payload" || r.Trailer.Get("X-Checksum") != "c0ffee" || r.Trailer.Get("X-Rows") != "1" {
			t.Fatalf("body %q trailers %v", r.body, r.Trailer)
		}
	})
}

// A retryable timeout problem says when to retry in both Retry-After and
// retry_after_ms, consistently; one that is not retryable says neither.
func TestTimeoutRetryAfterMatchesRetryable(t *testing.T) {
	cases := []struct {
		method, key string
		retryable   bool
	}{
		{http.MethodGet, "", true},
		{http.MethodPost, "", false},
		{http.MethodPost, "k-123456789", true},
		{http.MethodDelete, "", false},
	}
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		slow := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
		routes := map[string]http.HandlerFunc{}
		for _, c := range cases {
			routes[c.method+" /slow"] = slow
		}
		srv := k.serve(t, rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout)), routes))
		for _, c := range cases {
			req, _ := http.NewRequest(c.method, srv.URL+"/slow", nil)
			if c.key != "" {
				req.Header.Set("Idempotency-Key", c.key)
			}
			r := do(t, req)
			m := wantProblem(t, r, 503, "timeout", map[string]any{"retryable": c.retryable})
			if want := map[bool]string{true: "retry", false: "verify"}[c.retryable]; m["action"] != want {
				t.Errorf("%s key %q: action %v, want %s", c.method, c.key, m["action"], want)
			}
			ra, ms := r.Header.Get("Retry-After"), m["retry_after_ms"]
			if c.retryable && (ra != "1" || ms != float64(1000)) || !c.retryable && (ra != "" || ms != nil) {
				t.Errorf("%s key %q: Retry-After %q retry_after_ms %v", c.method, c.key, ra, ms)
			}
			if m["action"] == "retry" && m["retryable"] != true {
				t.Errorf("%s key %q: action retry with retryable false", c.method, c.key)
			}
		}
	})
}

// TestLateDeadlineWithBrokenLoggerKeepsTheServer: the record of a deadline
// that passed after the response started is written on the timer's
// goroutine, where no recover of net/http's or the handler's can catch a
// panic: a broken log handler there crashed the whole process. It is
// reported to slog's default, as a panic inside the writer is elsewhere.
func TestLateDeadlineWithBrokenLoggerKeepsTheServer(t *testing.T) {
	fallback := &syncBuffer{}
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	slog.SetDefault(slog.New(slog.NewJSONHandler(fallback, nil)))
	wr := problem.NewWriter(problem.WithLogger(slog.New(panickingHandler{slog.NewJSONHandler(io.Discard, nil)})))
	k := newKit()
	for i, stuck := range []time.Duration{4 * testTimeout, 6 * testTimeout} {
		srv := k.serve(t, Stack(WithWriter(wr), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("streaming;"))
			http.NewResponseController(w).Flush()
			// A stream that ignores its context for a while.
			time.Sleep(stuck)
			w.Write([]byte("done"))
		})))
		r := get(t, srv.URL)
		if r.StatusCode != 200 || string(r.body) != "streaming;done" {
			t.Fatalf("%d %q", r.StatusCode, r.body)
		}
		recs := waitRecords(t, fallback, i+1)
		if rec := recs[i]; rec["panic"] != "log handler broke" || rec["code"] != "timeout" || rec["correlation_id"] != r.Header.Get("X-Request-Id") {
			t.Fatalf("fallback record %v", rec)
		}
	}
}

// TestTimeoutAnswersAPendingReplacementAtTheDeadline: a handler that sent
// a bare error status and then stalled before its body (a proxy relaying
// an upstream's error whose body is slow to come) had nothing on the wire:
// the guard writes its problem with the first body byte. The client waited
// for the handler however long past the deadline, and the deadline was
// logged as if the response had started. The guard's problem goes out at
// the deadline instead, whole, and it is the request's one record.
func TestTimeoutAnswersAPendingReplacementAtTheDeadline(t *testing.T) {
	for _, c := range []struct {
		method string
		status int
		code   string
	}{
		{http.MethodGet, http.StatusBadGateway, "upstream_error"},
		{http.MethodPost, http.StatusConflict, "conflict"},
		{http.MethodHead, http.StatusNotFound, "not_found"},
	} {
		t.Run(c.method, func(t *testing.T) {
			k := newKit()
			release := make(chan struct{})
			returned := make(chan struct{})
			srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				defer close(returned)
				w.WriteHeader(c.status)
				<-release
				w.Write([]byte("the upstream's late error body"))
			})))
			released := false
			defer func() {
				if !released {
					close(release)
				}
			}()
			req, _ := http.NewRequest(c.method, srv.URL, nil)
			start := time.Now()
			client := srv.Client()
			client.Timeout = testTimeout + 2*time.Second
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("no answer at the deadline: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("reading the problem: %v", err)
			}
			if waited := time.Since(start); waited > testTimeout+time.Second {
				t.Fatalf("answered after %v, with a deadline of %v", waited, testTimeout)
			}
			if resp.StatusCode != c.status || resp.Header.Get(problem.DefaultCodeHeader) != c.code {
				t.Fatalf("status %d, code %q", resp.StatusCode, resp.Header.Get(problem.DefaultCodeHeader))
			}
			if c.method == http.MethodHead {
				if len(body) != 0 {
					t.Fatalf("HEAD got a body %q", body)
				}
			} else {
				wantProblem(t, response{resp, body}, c.status, c.code, nil)
			}
			// The handler, back, must not have the deadline logged again.
			released = true
			close(release)
			<-returned
			time.Sleep(10 * time.Millisecond)
			recs := waitRecords(t, k.logs, 1)
			if recs[0]["code"] != c.code || recs[0]["response_started"] != nil || recs[0]["correlation_id"] != resp.Header.Get("X-Request-Id") {
				t.Fatalf("record %v", recs[0])
			}
		})
	}
}
