package blackbox

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
)

// failure is one failure class of the mission, sent as a client would.
type failure struct {
	name         string
	method, path string
	body         string
	header       []string
	status       int
	code         string
}

var failures = []failure{
	{"handler error", "GET", "/err", "", nil, 500, "internal"},
	{"handler error on a write", "POST", "/err", "", nil, 500, "internal"},
	{"panic before the first write", "GET", "/panic", "", nil, 500, "internal"},
	{"panic with an error value on a write", "POST", "/panic", "", nil, 500, "internal"},
	{"bare error status", "GET", "/v1/orders/7", "", nil, 404, "not_found"},
	{"oversized body", "POST", "/v1/orders", `{"sku":"` + strings.Repeat("x", 2*bodyLimit) + `","quantity":1}`, []string{"Content-Type", "application/json"}, 413, "request_too_large"},
	{"oversized upload to a handler that reads", "POST", "/upload", strings.Repeat("x", 2*bodyLimit), nil, 413, "request_too_large"},
	{"timeout on a read", "GET", "/slow", "", nil, 503, "timeout"},
	{"timeout on a write", "POST", "/slow", "", nil, 503, "timeout"},
	{"timeout on a write with a key", "POST", "/slow", "", []string{"Idempotency-Key", "k-1"}, 503, "timeout"},
	{"unknown route", "GET", "/nowhere/at/all", "", nil, 404, "not_found"},
	{"wrong method", "DELETE", "/v1/orders/7", "", nil, 405, "method_not_allowed"},
	{"OPTIONS", "OPTIONS", "/v1/orders/7", "", nil, 405, "method_not_allowed"},
	{"TRACE", "TRACE", "/v1/orders/7", "", nil, 405, "method_not_allowed"},
	{"malformed JSON", "POST", "/v1/orders", `{"sku":`, []string{"Content-Type", "application/json"}, 400, "invalid_json"},
	{"JSON of the wrong shape", "POST", "/v1/orders", `[1,2]`, []string{"Content-Type", "application/json"}, 400, "invalid_json"},
	{"invalid fields", "POST", "/v1/orders", `{"sku":"","quantity":0}`, []string{"Content-Type", "application/json"}, 422, "validation_failed"},
	{"unsupported media type", "POST", "/v1/orders", `sku=1`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
	{"not acceptable", "GET", "/nowhere", "", []string{"Accept", "image/png"}, 404, "not_found"},
}

func TestEveryFailureClassKeepsTheWireContract(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		for name, newApp := range apps(t, legacy) {
			t.Run(fmt.Sprintf("%s/legacy=%v", name, legacy), func(t *testing.T) {
				t.Parallel()
				a := newApp(t)
				for _, f := range failures {
					ans := a.request(f.method, f.path, f.body, f.header...)
					a.checkContract(f.name, ans, f.status, f.code)
				}
				a.checkLogRedacted("every failure class")
			})
		}
	}
}

func TestRateLimitKeepsTheWireContract(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			a := newApp(t)
			for range 2 {
				if ans := a.request("GET", "/limited", ""); ans.status != http.StatusNoContent {
					t.Fatalf("within the limit: %d %s", ans.status, ans.body)
				}
			}
			ans := a.request("GET", "/limited", "")
			a.checkContract("rate limited", ans, 429, "rate_limited")
			if ans.header.Get("Retry-After") == "" || ans.doc["retryable"] != true {
				t.Errorf("a rate limit tells when to retry: %v %s", ans.header, ans.body)
			}
		})
	}
}

// A panic after the response started cannot become a problem: the client
// must see a broken response (never a 200 that looks complete), and the log
// one record.
func TestPanicAfterFirstWriteAbortsTheResponse(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			a := newApp(t)
			res, err := a.srv.Client().Get(a.srv.URL + "/panic-after")
			if err == nil {
				_, err = io.ReadAll(res.Body)
				res.Body.Close()
			}
			if err == nil {
				t.Fatalf("the client read a complete response after a panic mid-body")
			}
			var recs int
			for _, rec := range a.records() {
				if rec["level"] == "ERROR" && strings.Contains(fmt.Sprint(rec["panic"], rec["error"]), "dial postgres") {
					recs++
				}
			}
			if recs != 1 {
				t.Errorf("%d records of the panic, want 1:\n%s", recs, a.logs.String())
			}
			a.checkLogRedacted("panic after the first write")
		})
	}
}

// HEAD gets the headers a GET would, without a body, also on failures.
func TestHeadOnFailuresHasHeadersOnly(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			a := newApp(t)
			for _, path := range []string{"/v1/orders/7", "/nowhere", "/panic", "/err"} {
				get := a.request("GET", path, "")
				head := a.request("HEAD", path, "")
				if head.status != get.status || len(head.body) != 0 {
					t.Errorf("HEAD %s: %d with %d bytes; GET: %d", path, head.status, len(head.body), get.status)
				}
				for _, h := range []string{"Content-Type", "Cache-Control", "X-Error-Code"} {
					if head.header.Get(h) != get.header.Get(h) {
						t.Errorf("HEAD %s: %s %q, GET %q", path, h, head.header.Get(h), get.header.Get(h))
					}
				}
				if !strings.HasPrefix(head.header.Get("X-Request-Id"), "") || head.header.Get("X-Request-Id") == "" {
					t.Errorf("HEAD %s: no X-Request-Id", path)
				}
			}
		})
	}
}

// A write that failed while it ran (a returned error, an upstream's, a
// panic, a timeout) may have taken effect: without an Idempotency-Key its
// problem is never retryable and asks the client to verify, whichever path
// wrote it; with a key it is retryable. A client that reads only action
// never replays it blindly.
func TestWritesThatMayHaveRunAreNeverRetryableWithoutAKey(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t)
			for _, path := range []string{"/err", "/upstream", "/panic", "/slow"} {
				ans := a.request("POST", path, "")
				if ans.doc["action"] != "verify" || ans.doc["retryable"] != false || ans.doc["outcome"] != "unknown" {
					t.Errorf("POST %s without a key: %s", path, ans.body)
				}
				ans = a.request("POST", path, "", "Idempotency-Key", "key-"+path)
				if ans.doc["action"] != "retry" || ans.doc["retryable"] != true || ans.doc["outcome"] != "unknown" {
					t.Errorf("POST %s with a key: %s", path, ans.body)
				}
				ans = a.request("GET", path, "")
				if ans.doc["action"] != "retry" || ans.doc["retryable"] != true || ans.doc["outcome"] == "unknown" {
					t.Errorf("GET %s: %s", path, ans.body)
				}
			}
		})
	}
}

// The legacy members error and message are sent while the window runs and
// never after it ends, on every path that writes a problem; no
// Deprecation or Sunset header is sent by default.
func TestLegacyMembersEndWithTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		until time.Time
		want  bool
	}{
		{"window running", time.Now().Add(time.Hour), true},
		{"window over", time.Now().Add(-time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := &app{t: t, logs: &testlog.Buffer{}, legacy: tc.want, execs: &counter{n: map[string]int{}}}
			wr := problem.NewWriter(problem.WithLogger(testlog.Logger(a.logs)), problem.WithBaseURI("https://errors.example.com/"),
				problem.WithLegacy(problem.Legacy{Until: tc.until}))
			mux := http.NewServeMux()
			for pattern, h := range routes(wr, a.execs) {
				mux.Handle(pattern, h)
			}
			a.srv = httptest.NewServer(stack(wr)(mux))
			t.Cleanup(a.srv.Close)
			for _, f := range failures {
				if f.code == "timeout" {
					continue
				}
				ans := a.request(f.method, f.path, f.body, f.header...)
				a.checkContract(f.name, ans, f.status, f.code)
				if ans.header.Get("Deprecation") != "" || ans.header.Get("Sunset") != "" {
					t.Errorf("%s: Deprecation/Sunset sent by default: %v", f.name, ans.header)
				}
			}
		})
	}
}
