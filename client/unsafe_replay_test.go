package client_test

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// A server error that says retry but not what became of the write (an
// upstream_error, an unavailable or an internal problem without outcome, as
// a handler returns them) is, for a write without an Idempotency-Key, a
// write whose outcome is unknown: it is verified, never replayed, whatever
// its retryable says. The server executes it once.
func TestWriteAfterServerErrorWithoutOutcomeIsNotReplayed(t *testing.T) {
	for _, k := range []problem.Kind{problem.Internal, problem.UpstreamError, problem.UpstreamRequestFailed, problem.Unavailable, problem.UpstreamTimeout} {
		t.Run(k.Name, func(t *testing.T) {
			var executions atomic.Int32
			srv := kitServer(t, func(w http.ResponseWriter, r *http.Request) error {
				executions.Add(1)
				return problem.New(k)
			})
			rec := &recorder{}
			res := post(t, newClient(rec, client.WithSleep(noSleep)), srv.URL, `{"n":1}`)
			err := client.ReadError(res)
			res.Body.Close()
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code != k.Name {
				t.Fatalf("answer: %v", err)
			}
			if n := executions.Load(); n != 1 {
				t.Errorf("the write was executed %d times", n)
			}
			if got := rec.last(t).Decision.Verdict; got != client.Verify {
				t.Errorf("verdict %s, want verify", got)
			}
			// With a key the same write is replayed.
			executions.Store(0)
			res = post(t, newClient(&recorder{}, client.WithSleep(noSleep)), srv.URL, `{"n":1}`, client.IdempotencyKeyHeader, "k-1")
			res.Body.Close()
			if n := executions.Load(); n != int32(fastPolicy.MaxAttempts) {
				t.Errorf("a keyed write was executed %d times, want %d", n, fastPolicy.MaxAttempts)
			}
		})
	}
}

// Decide reads a missing outcome from the status, as it does for a problem
// without an action: 5xx leaves a write's outcome unknown, while 429 says
// the request was not processed.
func TestDecideMissingOutcomeFollowsTheStatus(t *testing.T) {
	for _, tc := range []struct {
		kind problem.Kind
		want client.Verdict
	}{
		{problem.Internal, client.Verify},
		{problem.UpstreamError, client.Verify},
		{problem.Unavailable, client.Verify},
		{problem.UpstreamTimeout, client.Verify},
		{problem.RateLimited, client.Retry},
		{problem.ClientClosedRequest, client.Retry},
	} {
		p := problem.New(tc.kind)
		if d := testPolicy.Decide(client.Attempt{Method: "POST", Problem: p, Number: 1}); d.Verdict != tc.want {
			t.Errorf("POST %s: %s (%s), want %s", tc.kind.Name, d.Verdict, d.Reason, tc.want)
		}
		if d := testPolicy.Decide(client.Attempt{Method: "POST", Problem: p.WithOutcome(problem.OutcomeNotStarted), Number: 1}); d.Verdict != client.Retry {
			t.Errorf("POST %s not_started: %s (%s), want retry", tc.kind.Name, d.Verdict, d.Reason)
		}
		if d := testPolicy.Decide(client.Attempt{Method: "GET", Problem: p, Number: 1}); d.Verdict != client.Retry {
			t.Errorf("GET %s: %s (%s), want retry", tc.kind.Name, d.Verdict, d.Reason)
		}
	}
}
