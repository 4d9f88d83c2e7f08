package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// polite records what reached it: how many requests at once, and every
// User-Agent and X-Request-Id.
type polite struct {
	inFlight, most atomic.Int64
	mu             sync.Mutex
	agents, ids    []string
	methods        []string
}

func (p *polite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for old := p.most.Load(); n > old && !p.most.CompareAndSwap(old, n); old = p.most.Load() {
	}
	p.mu.Lock()
	p.agents = append(p.agents, r.UserAgent())
	p.methods = append(p.methods, r.Method)
	p.ids = append(p.ids, r.Header.Get("X-Request-Id"))
	p.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	http.NotFound(w, r)
}

func TestConcurrencyCapAndIdentity(t *testing.T) {
	srv := &polite{}
	_, rep, _ := probeRun(t, serveApp(t, srv), "-checks", "burst,unknown-route", "-burst", "12", "-concurrency", "3", "-rate", "500")
	if most := srv.most.Load(); most > 3 || most < 2 {
		t.Errorf("%d requests at once, want at most 3 (and the burst to use them)", most)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	reported := map[string]bool{}
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			reported[r.ID] = true
		}
	}
	// The discovery TRACE to the base path is not a report line (it found
	// no route); every other request is.
	if len(srv.ids) != 14 || len(reported) != 13 {
		t.Fatalf("%d requests arrived, %d reported", len(srv.ids), len(reported))
	}
	for i, id := range srv.ids {
		if !strings.HasPrefix(srv.agents[i], "faultline-probe/") || !strings.HasSuffix(srv.agents[i], "probe-id/"+id) {
			t.Errorf("User-Agent %q for %s", srv.agents[i], id)
		}
		if !reported[id] && i != 0 {
			t.Errorf("request %s is not in the report", id)
		}
	}
	var burstFailure string
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				if f.Judgement == jBurst {
					burstFailure = f.Why
				}
			}
		}
	}
	if burstFailure != "no 429 in 12 requests sent at once" {
		t.Errorf("burst failure %q", burstFailure)
	}
}

func TestRateAndTotalTimeout(t *testing.T) {
	srv := &polite{}
	base := serveApp(t, srv)
	start := time.Now()
	probeRun(t, base, "-checks", "accept,request-id", "-rate", "20")
	// 11 requests (with the discovery TRACE) at 20/s: the last leaves
	// half a second after the first.
	if d := time.Since(start); d < 450*time.Millisecond {
		t.Errorf("11 requests at -rate 20 took %s", d)
	}

	h := newHostile(t)
	start = time.Now()
	_, rep, _ := probeRun(t, h.srv.URL+"/hang", "-checks", "unknown-route,accept", "-request-timeout", "10s", "-timeout", "400ms", "-rate", "500")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("-timeout 400ms: the run took %s", d)
	}
	for _, c := range rep.Checks {
		if c.Verdict != verdictFail {
			t.Errorf("%s: %s, want fail", c.Check, c.Verdict)
		}
	}
}

func TestProgressLine(t *testing.T) {
	var out syncBuffer
	c := &client{}
	c.sent.Store(7)
	stop := progress(&out, c, time.Now().Add(-time.Minute), 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	stop()
	if !strings.Contains(out.String(), "faultline probe: 7 requests sent, 1m0s\n") {
		t.Errorf("progress %q", out.String())
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Without -allow-writes no write method is sent, whatever the routes take;
// -skip drops a check from the run and the report; -openapi reads a file.
func TestNoWritesWithoutAllowWrites(t *testing.T) {
	srv := &polite{}
	spec := filepath.Join(t.TempDir(), "openapi.json")
	doc := `{"openapi":"3.1.0","paths":{"/v1/items":{"post":{},"get":{}},"/v1/items/{id}":{"delete":{},"get":{}}}}`
	if err := os.WriteFile(spec, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	_, rep, _ := probeRun(t, serveApp(t, srv), "-openapi", spec, "-route", "POST,PUT /v1/other", "-max-body", "100", "-slow", "100ms", "-skip", "canary", "-rate", "500")
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, m := range srv.methods {
		if isWrite(m) {
			t.Errorf("%s sent without -allow-writes", m)
		}
	}
	var targets []string
	for _, c := range rep.Checks {
		if c.Check == "canary" {
			t.Error("-skip canary ran canary")
		}
		if c.Check == "method-not-allowed" {
			for _, r := range c.Requests {
				targets = append(targets, r.Method+" "+r.Target)
			}
		}
	}
	for _, want := range []string{"TRACE /v1/items", "TRACE /v1/items/faultline-probe", "GET /v1/other", "TRACE /v1/other"} {
		if !slices.Contains(targets, want) {
			t.Errorf("method-not-allowed sent %q, not %s", targets, want)
		}
	}
}

// -rate is a cap whatever number it is given: NaN passed the "must be
// positive" check and a rate under about 1e-10/s overflowed the interval
// to a negative Duration, and either way every request left at once.
func TestRateCapHoldsForExtremeValues(t *testing.T) {
	base := serveApp(t, &polite{})
	for _, rate := range []string{"NaN", "nan"} {
		if code, _, _ := probeRun(t, base, "-rate", rate); code != exitUsage {
			t.Errorf("-rate %s: exit %d, want %d", rate, code, exitUsage)
		}
	}
	for _, rate := range []string{"1e-10", "1e-300", "4.9e-324"} {
		_, rep, _ := probeRun(t, base, "-rate", rate, "-timeout", "300ms", "-checks", "accept")
		sent := 0
		for _, c := range rep.Checks {
			for _, r := range c.Requests {
				if r.Status != 0 {
					sent++
				}
			}
		}
		// The discovery TRACE leaves at once; nothing else may within
		// the run.
		if sent != 0 {
			t.Errorf("-rate %s: %d accept requests answered within 300ms", rate, sent)
		}
	}
}
