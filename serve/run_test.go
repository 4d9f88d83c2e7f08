package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

type result struct {
	name   string
	status int
	header http.Header
	p      *problem.Problem
	err    error
}

// started runs Run on a loopback listener and returns its URL, a cancel
// that begins the shutdown, and a channel with Run's result.
func started(t *testing.T, h http.Handler, wr *problem.Writer, budget time.Duration) (string, context.CancelFunc, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	hs := NewServer(h)
	go func() { done <- Run(ctx, hs, ln, WithWriter(wr), WithShutdownBudget(budget)) }()
	t.Cleanup(cancel)
	return "http://" + ln.Addr().String(), cancel, done
}

func send(url, name, method string, header http.Header) result {
	req, _ := http.NewRequest(method, url, strings.NewReader(`{"sku":"abc"}`))
	for k, v := range header {
		req.Header[k] = v
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return result{name: name, err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	res := result{name: name, status: resp.StatusCode, header: resp.Header, err: err}
	if resp.StatusCode >= 400 {
		res.p, res.err = problem.Parse(raw)
	}
	return res
}

// Handlers that outlive the budget are answered with unavailable, each
// with the outcome its method allows; a handler that finishes in time
// answers itself; Run returns nil (exit status 0) within the budget.
func TestRunAnswersRequestsCutByShutdown(t *testing.T) {
	wr, sink := newWriter()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var entered sync.WaitGroup
	mux := http.NewServeMux()
	mux.HandleFunc("/stuck", func(w http.ResponseWriter, r *http.Request) {
		entered.Done()
		w.Header().Set("X-Handler", "set before the cut") // never sent
		<-release                                         // ignores its context, as a stuck handler does
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("/reads-body", func(w http.ResponseWriter, r *http.Request) {
		entered.Done()
		_, _ = io.ReadAll(r.Body) // blocked on a client that never finishes its upload
		<-release
	})
	mux.HandleFunc("/quick", func(w http.ResponseWriter, r *http.Request) {
		entered.Done()
		time.Sleep(300 * time.Millisecond)
		_, _ = io.WriteString(w, "done")
	})
	const budget = 1500 * time.Millisecond
	url, shutdown, done := started(t, mux, wr, budget)

	cases := []struct {
		name, method, path string
		header             http.Header
	}{
		{"get", http.MethodGet, "/stuck", nil},
		{"post", http.MethodPost, "/stuck", nil},
		{"post with key", http.MethodPost, "/stuck", http.Header{"Idempotency-Key": {"k-1"}}},
		{"delete", http.MethodDelete, "/stuck", http.Header{"X-Request-Id": {"req-from-client-0001"}}},
		{"quick", http.MethodGet, "/quick", nil},
	}
	results := make(chan result, len(cases)+1)
	entered.Add(len(cases) + 1)
	for _, c := range cases {
		go func() { results <- send(url+c.path, c.name, c.method, c.header) }()
	}
	// A slow upload: the handler is blocked in the body read at the cutoff.
	go func() {
		pr, pw := io.Pipe()
		defer pw.Close()
		req, _ := http.NewRequest(http.MethodPut, url+"/reads-body", pr)
		req.ContentLength = 1 << 20
		go func() { _, _ = pw.Write([]byte(`{"partial":`)) }()
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			results <- result{name: "slow upload", err: err}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		p, err := problem.Parse(raw)
		results <- result{name: "slow upload", status: resp.StatusCode, header: resp.Header, p: p, err: err}
	}()
	entered.Wait()
	begin := time.Now()
	shutdown()

	got := map[string]result{}
	for range len(cases) + 1 {
		r := <-results
		got[r.name] = r
	}
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v, want nil", err)
	}
	if took := time.Since(begin); took > budget+500*time.Millisecond {
		t.Errorf("shutdown took %v with a budget of %v", took, budget)
	}

	if r := got["quick"]; r.err != nil || r.status != http.StatusOK {
		t.Errorf("quick: %d %v", r.status, r.err)
	}
	want := map[string]struct {
		outcome    problem.Outcome
		retryable  bool
		retryAfter string
	}{
		"get":           {problem.OutcomeNotCommitted, true, "1"},
		"post":          {problem.OutcomeUnknown, false, ""},
		"post with key": {problem.OutcomeUnknown, true, "1"},
		"delete":        {problem.OutcomeUnknown, false, ""},
		"slow upload":   {problem.OutcomeUnknown, false, ""},
	}
	for name, w := range want {
		r := got[name]
		if r.err != nil || r.p == nil {
			t.Errorf("%s: no problem: %d %v", name, r.status, r.err)
			continue
		}
		if r.status != 503 || r.p.Code() != "unavailable" || r.p.Outcome() != w.outcome || r.p.Retryable() != w.retryable {
			t.Errorf("%s: %d %s outcome %q retryable %v", name, r.status, r.p.Code(), r.p.Outcome(), r.p.Retryable())
		}
		if got := r.header.Get("Retry-After"); got != w.retryAfter {
			t.Errorf("%s: Retry-After %q, want %q", name, got, w.retryAfter)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
			t.Errorf("%s: Content-Type %q", name, ct)
		}
		if id := r.header.Get("X-Request-Id"); id == "" || id != r.p.CorrelationID() {
			t.Errorf("%s: X-Request-Id %q, correlation_id %q", name, id, r.p.CorrelationID())
		}
		if r.header.Get("X-Handler") != "" {
			t.Errorf("%s: the stuck handler's header leaked into the problem", name)
		}
	}
	if id := got["delete"].p.CorrelationID(); id != "req-from-client-0001" {
		t.Errorf("the client's request ID was not kept: %q", id)
	}

	draining := sink.withMsg(t, "shutdown: draining")
	if len(draining) != 1 || draining[0]["in_flight"] != float64(len(cases)+1) {
		t.Errorf("draining records: %v", draining)
	}
	problems := 0
	for _, rec := range sink.withMsg(t, "problem") {
		if rec["code"] == "unavailable" {
			problems++
		}
	}
	if problems != len(want) {
		t.Errorf("%d unavailable problems logged, want one per cut request (%d)", problems, len(want))
	}
	final := sink.withMsg(t, "shutdown: budget ended with requests in flight")
	if len(final) != 1 || final[0]["answered"] != float64(len(want)) || final[0]["cut_mid_response"] != float64(0) {
		t.Errorf("final record: %v", final)
	}
}

// A drain that finishes in time logs it and returns nil, with no problem.
func TestRunDrainsCleanly(t *testing.T) {
	wr, sink := newWriter()
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		time.Sleep(200 * time.Millisecond)
		_, _ = io.WriteString(w, "ok")
	})
	url, shutdown, done := started(t, h, wr, 5*time.Second)
	res := make(chan result, 1)
	go func() { res <- send(url, "drained", http.MethodPost, nil) }()
	<-entered
	shutdown()
	if r := <-res; r.err != nil || r.status != 200 {
		t.Fatalf("%d %v", r.status, r.err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(sink.withMsg(t, "shutdown: drained")) != 1 || len(sink.withMsg(t, "problem")) != 0 {
		t.Fatalf("records: %v", sink.records(t))
	}
}

// A response that started before the cutoff cannot become a problem: the
// client sees it broken off, the problem is logged as not written, and Run
// says so.
func TestRunReportsResponsesCutMidway(t *testing.T) {
	wr, sink := newWriter()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, "first half")
		http.NewResponseController(w).Flush()
		close(entered)
		<-release
	})
	url, shutdown, done := started(t, h, wr, time.Second)
	res := make(chan result, 1)
	go func() { res <- send(url, "streaming", http.MethodGet, nil) }()
	<-entered
	shutdown()
	if r := <-res; r.err == nil || r.status != 200 {
		t.Errorf("a truncated body read without error: %d %v", r.status, r.err)
	}
	if err := <-done; !errors.Is(err, ErrResponsesCut) {
		t.Fatalf("Run returned %v", err)
	}
	if recs := sink.withMsg(t, "problem not written: response already started"); len(recs) != 1 || recs[0]["code"] != "unavailable" {
		t.Fatalf("records: %v", sink.records(t))
	}
}

// A request that reaches the handler once shutdown began is not run: it is
// answered not_started, retryable, and the connection is closed.
func TestRefusedWhileDraining(t *testing.T) {
	wr, _ := newWriter()
	ran := false
	tr, h := newTracker(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }),
		&runConfig{writer: wr})
	tr.draining.Store(true)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/orders", nil))
	p, err := problem.Parse(rec.Body.Bytes())
	if err != nil || ran {
		t.Fatalf("ran %v: %v", ran, err)
	}
	if rec.Code != 503 || p.Code() != "unavailable" || p.Outcome() != problem.OutcomeNotStarted || !p.Retryable() ||
		rec.Header().Get("Retry-After") != "1" || rec.Header().Get("Connection") != "close" {
		t.Fatalf("%d %s %s %v %v", rec.Code, p.Code(), p.Outcome(), p.Retryable(), rec.Header())
	}
}

// A handler whose ServeHTTP returns unblocks every path through the
// wrapper; the timing-free check that tracking forgets finished requests.
func TestTrackerForgetsFinishedRequests(t *testing.T) {
	wr, _ := newWriter()
	tr, h := newTracker(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = fmt.Fprint(w, "ok")
	}), &runConfig{writer: wr})
	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		if rec.Body.String() != "ok" || rec.Header().Get("Content-Type") != "text/plain" || rec.Header().Get("X-Request-Id") == "" {
			t.Fatalf("%d %q %v", rec.Code, rec.Body, rec.Header())
		}
	}
	if n := tr.inFlight(); n != 0 {
		t.Fatalf("%d requests still tracked", n)
	}
}

// A handler that sent its whole response and then lingers (as behind the
// kit's timeout, which answers while the handler runs on) has lost
// nothing: the cutoff neither logs it nor reports a cut response.
func TestRunLeavesCompleteResponsesAlone(t *testing.T) {
	wr, sink := newWriter()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "4")
		_, _ = io.WriteString(w, "done")
		http.NewResponseController(w).Flush()
		close(entered)
		<-release
	})
	url, shutdown, done := started(t, h, wr, time.Second)
	res := make(chan result, 1)
	go func() { res <- send(url, "complete", http.MethodPost, nil) }()
	<-entered
	shutdown()
	if r := <-res; r.err != nil || r.status != 200 {
		t.Errorf("%d %v", r.status, r.err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if n := len(sink.withMsg(t, "problem")) + len(sink.withMsg(t, "problem not written: response already started")); n != 0 {
		t.Fatalf("records: %v", sink.records(t))
	}
}

// Operators read shutdown records in JSON logs: a duration must read as
// one ("1.5s"), not as slog's nanosecond count, in every record of a clean
// drain and of a cut one, configured budgets and measured times alike.
func TestShutdownRecordsTellDurationsAsText(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler time.Duration
		budget  time.Duration
	}{
		{"drained", 100 * time.Millisecond, 3 * time.Second},
		{"cut", 5 * time.Second, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wr, sink := newWriter()
			entered := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				select {
				case <-time.After(tc.handler):
				case <-r.Context().Done():
				}
			})
			url, shutdown, done := started(t, h, wr, tc.budget)
			res := make(chan result, 1)
			go func() { res <- send(url, tc.name, http.MethodGet, nil) }()
			<-entered
			shutdown()
			<-res
			<-done
			seen := 0
			for _, rec := range sink.records(t) {
				for _, key := range []string{"budget", "took", "running", "shutdown_budget"} {
					v, ok := rec[key]
					if !ok {
						continue
					}
					seen++
					s, isText := v.(string)
					if _, err := time.ParseDuration(s); !isText || err != nil {
						t.Errorf("%q: %s is %v, not a duration as text", rec["msg"], key, v)
					}
				}
			}
			if seen < 2 {
				t.Errorf("%d durations in the records: %v", seen, sink.records(t))
			}
		})
	}
}
