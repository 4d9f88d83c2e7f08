package client_test

import (
	"context"
	"errors"
	"fmt"
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

// Every server error, not only the four statuses net/http's proxies use
// most, leaves a write's outcome unknown when the problem says retry
// without an outcome: a 507 after the handler wrote, a CDN's 520-524 after
// the origin took the request (524: it did, and did not answer in time), a
// 599 from a gateway. A write without a key is executed once and verified;
// the command's exit code never says running it again is safe. A read,
// and a write under a key, are retried.
func TestWriteAfterAnyServerErrorWithoutOutcomeIsNotReplayed(t *testing.T) {
	for _, status := range []int{501, 505, 507, 508, 510, 511, 520, 521, 522, 523, 524, 525, 529, 530, 598, 599} {
		for _, fail := range []answer{
			{status, map[string]string{"Content-Type": "application/problem+json"}, fmt.Sprintf(`{"status":%d,"title":"t","action":"retry","retryable":true}`, status)},
			{status, map[string]string{"Content-Type": "application/problem+json"}, `{"code":"storage_full","action":"retry","retryable":true,"cause":"environment"}`},
			{status, map[string]string{"Content-Type": "application/problem+xml"}, `<problem xmlns="urn:ietf:rfc:7807"><action>retry</action><retryable>true</retryable><cause>upstream</cause></problem>`},
		} {
			for _, method := range []string{"POST", "PATCH"} {
				srv, executed := countingServer(t, 10, fail)
				var rec recorder
				res, err := newClient(&rec, client.WithSleep(noSleep)).Do(request(t, context.Background(), method, srv.URL))
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if n := executed.Load(); n != 1 {
					t.Errorf("%s %d %s: the write was executed %d times", method, status, fail.body, n)
				}
				if v := rec.last(t).Decision.Verdict; v != client.Verify {
					t.Errorf("%s %d %s: verdict %s, want verify", method, status, fail.body, v)
				}
				if code := client.ExitCode(method, client.ReadError(res)); code != client.ExitUnknownOutcome {
					t.Errorf("%s %d %s: exit code %d, want %d", method, status, fail.body, code, client.ExitUnknownOutcome)
				}
			}
			for _, tc := range []struct {
				method string
				header []string
			}{{"GET", nil}, {"PUT", nil}, {"POST", []string{client.IdempotencyKeyHeader, "order-" + fmt.Sprint(status)}}} {
				srv, executed := countingServer(t, 10, fail)
				res, err := newClient(&recorder{}, client.WithSleep(noSleep)).Do(request(t, context.Background(), tc.method, srv.URL, tc.header...))
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if n := executed.Load(); n != int32(fastPolicy.MaxAttempts) {
					t.Errorf("%s %v %d: executed %d times, want %d", tc.method, tc.header, status, n, fastPolicy.MaxAttempts)
				}
			}
		}
	}
}
