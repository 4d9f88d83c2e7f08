package client_test

import (
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// FuzzDecide holds Decide to the rules a caller relies on whatever a server
// sends: a retry never waits less than nothing nor past the budget, a
// write whose outcome is unknown or committed is never replayed without a
// key, retryable false never retries, attempts stay bounded, and the exit
// code agrees with the verdict.
func FuzzDecide(f *testing.F) {
	f.Add("POST", 503, "retry", "", true, int64(2400), 1, int64(0), false, 0.5)
	f.Add("POST", 502, "retry", "not_started", true, int64(0), 2, int64(time.Second), false, 0.9)
	f.Add("GET", 429, "retry", "", true, int64(1<<62), 1, int64(1<<62), false, 0.999)
	f.Add("PATCH", 500, "", "", false, int64(-5), 3, int64(-1), true, -1.0)
	f.Add("DELETE", 504, "verify", "unknown", false, int64(9223372036854), 1, int64(0), false, 0.0)
	f.Add("POST", 429, "retry", "partially_applied", true, int64(0), 1, int64(0), false, 0.1)
	f.Add("GET", 503, "retry_later", "", true, int64(0), 1, int64(0), false, 0.1)
	pol := client.Policy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxElapsed: 10 * time.Second}
	f.Fuzz(func(t *testing.T, method string, status int, action, outcome string, retryable bool, retryAfter int64, number int, elapsed int64, key bool, jitter float64) {
		// A peer's document may carry any status Parse keeps; the builders
		// then set members outside the closed sets.
		p := peer(map[string]any{"status": status}).WithAction(problem.Action(action)).WithOutcome(problem.Outcome(outcome)).
			WithRetryAfter(time.Duration(retryAfter)).WithRetryable(retryable)
		a := client.Attempt{Method: method, Problem: p, Number: number, Elapsed: time.Duration(elapsed), IdempotencyKey: key, Jitter: jitter}
		d := pol.Decide(a)
		if err := checkAgreement(d); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		if d.Verdict != client.Retry {
			if d.Delay != 0 {
				t.Fatalf("%+v: %s with a delay %v", a, d.Verdict, d.Delay)
			}
			return
		}
		if d.Delay < 0 || max(a.Elapsed, 0)+d.Delay >= pol.MaxElapsed {
			t.Fatalf("%+v: retry after %v", a, d.Delay)
		}
		if number >= pol.MaxAttempts {
			t.Fatalf("%+v: retry past the attempts", a)
		}
		write := method != "GET" && method != "HEAD" && method != "OPTIONS" && method != "TRACE" && method != "PUT" && method != "DELETE" && method != ""
		if write && !key {
			switch {
			case outcome != "" && outcome != "not_started" && outcome != "not_committed":
				t.Fatalf("%+v: a write of outcome %q replayed without a key", a, outcome)
			case outcome == "" && (status == 500 || status == 502 || status == 503 || status == 504):
				t.Fatalf("%+v: a write cut by a %d replayed without a key", a, status)
			}
		}
		if action != "" && !retryable {
			t.Fatalf("%+v: retry although the server says it is not retryable", a)
		}
	})
}
