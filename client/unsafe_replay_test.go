package client_test

import (
	"errors"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

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
		t.Run(string(k), func(t *testing.T) {
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
			if !errors.As(err, &p) || string(p.Code()) != string(k) {
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
			t.Errorf("POST %s: %s (%s), want %s", string(tc.kind), d.Verdict, d.Reason, tc.want)
		}
		if d := testPolicy.Decide(client.Attempt{Method: "POST", Problem: p.WithOutcome(problem.OutcomeNotStarted), Number: 1}); d.Verdict != client.Retry {
			t.Errorf("POST %s not_started: %s (%s), want retry", string(tc.kind), d.Verdict, d.Reason)
		}
		if d := testPolicy.Decide(client.Attempt{Method: "GET", Problem: p, Number: 1}); d.Verdict != client.Retry {
			t.Errorf("GET %s: %s (%s), want retry", string(tc.kind), d.Verdict, d.Reason)
		}
	}
}

// A server asking for an absurd wait (the largest retry_after_ms Parse
// keeps, a Retry-After of years) is past any deadline: the operation
// stops. Adding it to the elapsed time or to the backoff must not wrap
// around into a retry that starts at once or sleeps forever.
func TestDecideHugeRetryAfterStops(t *testing.T) {
	huge := problem.New(problem.RateLimited).WithRetryAfter(time.Duration(math.MaxInt64/int64(time.Millisecond)) * time.Millisecond)
	parsed, err := problem.Parse([]byte(`{"status":429,"code":"rate_limited","action":"retry","retryable":true,"retry_after_ms":9223372036854}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*problem.Problem{huge, parsed} {
		for _, a := range []client.Attempt{
			{Method: "GET", Problem: p, Number: 1},
			{Method: "GET", Problem: p, Number: 1, Elapsed: time.Second},
			{Method: "GET", Problem: p, Number: 2, Jitter: 0.999},
		} {
			if d := testPolicy.Decide(a); d.Verdict != client.Stop || d.Delay != 0 {
				t.Errorf("retry after %v, elapsed %v, jitter %v: %s %v (%s)", p.RetryAfter(), a.Elapsed, a.Jitter, d.Verdict, d.Delay, d.Reason)
			}
		}
	}
}
