package problem_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Every code of the default registry, written for every method, with and
// without an Idempotency-Key, with every outcome, with and without a retry
// time of its own and under every kind of Retry-After a handler may have
// set: the retry signals a client reads never contradict each other.
func TestRetrySignalsNeverContradict(t *testing.T) {
	// The clock puts the handler's HTTP-date Retry-After 28 minutes ahead.
	now := time.Date(2026, 10, 21, 7, 0, 0, 0, time.UTC)
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		problemhook.WithClock(func() time.Time { return now }).(problem.Option))
	actions := map[string]bool{"retry": true, "verify": true, "fix_request": true, "reauthenticate": true, "configure": true, "approve": true, "unlock": true, "none": true}
	causes := map[string]bool{"request": true, "auth": true, "policy": true, "config": true, "internal": true, "upstream": true, "environment": true}
	outcomes := []problem.Outcome{"", problem.OutcomeNotStarted, problem.OutcomeNotCommitted, problem.OutcomeCommitted, problem.OutcomeUnknown, "bogus"}
	handlerRetryAfter := []string{"", "30", "0", "Wed, 21 Oct 2026 07:28:00 GMT", "Tue, 20 Oct 2026 07:28:00 GMT", "-5", "soon"}
	n := 0
	for _, k := range problem.DefaultRegistry().Definitions() {
		for _, method := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"} {
			for _, key := range []string{"", "k-1"} {
				for _, o := range outcomes {
					for _, own := range []time.Duration{0, 1500 * time.Millisecond} {
						for _, hra := range handlerRetryAfter {
							for _, forReq := range []bool{false, true} {
								req := httptest.NewRequest(method, "/v1/x", nil)
								if key != "" {
									req.Header.Set("Idempotency-Key", key)
								}
								p := problem.New(k.Code).WithOutcome(o)
								if own > 0 {
									p = p.WithRetryAfter(own)
								}
								if forReq {
									p = p.ForRequest(req)
								}
								rec := httptest.NewRecorder()
								if hra != "" {
									rec.Header().Set("Retry-After", hra)
								}
								if method == "HEAD" {
									req.Method = "GET" // HEAD would answer without the body this test reads; ForRequest already saw the real method
								}
								_ = wr.Write(rec, req, p)
								req.Method = method
								n++
								where := string(k.Code) + " " + method + " key=" + key + " outcome=" + string(o) + " own=" + own.String() + " handler=" + hra + " forRequest=" + strconv.FormatBool(forReq)
								var doc map[string]any
								if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
									t.Fatalf("%s: %v", where, err)
								}
								action, _ := doc["action"].(string)
								retryable, _ := doc["retryable"].(bool)
								outcome, _ := doc["outcome"].(string)
								if !actions[action] || !causes[doc["cause"].(string)] {
									t.Fatalf("%s: action %q cause %v outside the closed sets", where, action, doc["cause"])
								}
								if action == "retry" && !retryable {
									t.Fatalf("%s: action retry with retryable false", where)
								}
								if outcome == "unknown" && key == "" && (retryable || action != "verify") {
									t.Fatalf("%s: unknown outcome without a key is %q retryable=%v", where, action, retryable)
								}
								unsafe := method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE"
								if outcome == "committed" && key == "" && unsafe && retryable {
									t.Fatalf("%s: a write that took effect, without a key, is retryable", where)
								}
								ms, hasMS := doc["retry_after_ms"].(float64)
								header := rec.Header().Get("Retry-After")
								if !retryable {
									// A handler's own header is kept as Guard keeps
									// every header that matters, never under verify.
									if hasMS || header != "" && (header != hra || action == "verify") {
										t.Fatalf("%s: retry time (ms=%v header=%q) on a problem that is not retryable", where, doc["retry_after_ms"], header)
									}
									continue
								}
								if hasMS != (header != "") {
									t.Fatalf("%s: retry_after_ms %v and Retry-After %q not sent together", where, doc["retry_after_ms"], header)
								}
								if hasMS {
									secs, err := strconv.Atoi(header)
									if err != nil || secs != int((int64(ms)+999)/1000) {
										t.Fatalf("%s: Retry-After %q disagrees with retry_after_ms %v", where, header, ms)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}
