package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

var testPolicy = client.Policy{MaxAttempts: 4, BaseDelay: 100 * time.Millisecond, MaxDelay: 350 * time.Millisecond, MaxElapsed: 10 * time.Second}

// byAction is the contract's mapping from action to verdict, stated
// independently of Decide's switch.
var byAction = map[problem.Action]client.Verdict{
	problem.ActionRetry:          client.Retry,
	problem.ActionVerify:         client.Verify,
	problem.ActionFixRequest:     client.FixRequest,
	problem.ActionReauthenticate: client.Reauthenticate,
	problem.ActionApprove:        client.WaitForApproval,
	problem.ActionConfigure:      client.Stop,
	problem.ActionUnlock:         client.Stop,
	problem.ActionNone:           client.Stop,
}

// TestDecideEveryRegisteredCode walks every code of the default registry
// for GET and POST, with and without an Idempotency-Key, and for each
// outcome a server may report.
func TestDecideEveryRegisteredCode(t *testing.T) {
	codes := problem.DefaultRegistry().Definitions()
	if len(codes) < 20 {
		t.Fatalf("only %d codes in the default registry", len(codes))
	}
	for _, c := range codes {
		for _, outcome := range []problem.Outcome{"", problem.OutcomeNotStarted, problem.OutcomeNotCommitted, problem.OutcomeUnknown, problem.OutcomeCommitted} {
			for _, tc := range []struct {
				method string
				key    bool
			}{{"GET", false}, {"POST", false}, {"POST", true}} {
				name := fmt.Sprintf("%s/%s/outcome=%s/key=%v", string(c.Code), tc.method, outcome, tc.key)
				p := problem.New(c.Code)
				if outcome != "" {
					p = p.WithOutcome(outcome)
				}
				want, ok := byAction[c.Action]
				if !ok {
					t.Fatalf("%s: action %q has no verdict in the contract", string(c.Code), c.Action)
				}
				if want == client.Retry && !c.Retryable {
					want = client.Stop
				}
				write := tc.method == "POST" && !tc.key
				effective := p.Outcome()
				if effective == "" && c.Action == problem.ActionRetry && (c.Status == 500 || c.Status == 502 || c.Status == 503 || c.Status == 504) {
					// Nobody verified what became of a write a 5xx cut.
					effective = problem.OutcomeUnknown
				}
				switch {
				case write && effective == problem.OutcomeUnknown:
					// Whatever the action: sending it again, changed or
					// not, could apply it twice (the Writer's rule too).
					want = client.Verify
				case write && effective == problem.OutcomeCommitted && c.Action == problem.ActionRetry:
					want = client.Stop
				}
				d := testPolicy.Decide(client.Attempt{Method: tc.method, Problem: p, Number: 1, IdempotencyKey: tc.key, Jitter: 0.5})
				if d.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", name, d.Verdict, d.Reason, want)
				}
				if d.Verdict == client.Retry && d.Delay != 50*time.Millisecond {
					t.Errorf("%s: delay %s, want 50ms (half the first backoff)", name, d.Delay)
				}
				if d.Verdict != client.Retry && d.Delay != 0 {
					t.Errorf("%s: delay %s without a retry", name, d.Delay)
				}
			}
		}
	}
}

// TestDecideNamedCodes pins the verdicts a user relies on by name.
func TestDecideNamedCodes(t *testing.T) {
	for _, tc := range []struct {
		code   problem.Kind
		method string
		want   client.Verdict
	}{
		{problem.ValidationFailed, "POST", client.FixRequest},
		{problem.Unauthorized, "GET", client.Reauthenticate},
		{problem.PolicyDenied, "DELETE", client.Stop},
		{problem.ApprovalRequired, "POST", client.WaitForApproval},
		{problem.Locked, "PUT", client.Stop},
		{problem.RateLimited, "POST", client.Retry},
		{problem.UpstreamError, "GET", client.Retry},
	} {
		if d := testPolicy.Decide(client.Attempt{Method: tc.method, Problem: problem.New(tc.code), Number: 1}); d.Verdict != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.method, tc.code, d.Verdict, tc.want)
		}
	}
}

// TestDecideTimeoutAsServersSendIt: the timeout problem of a POST without a
// key as today's middleware sends it (retry, retryable false, outcome
// unknown) and as the contract's verify action says it.
func TestDecideTimeoutAsServersSendIt(t *testing.T) {
	old := problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown).WithRetryable(false)
	verify := problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown).WithAction(problem.ActionVerify).WithRetryable(false)
	for _, p := range []*problem.Problem{old, verify} {
		d := testPolicy.Decide(client.Attempt{Method: "POST", Problem: p, Number: 1})
		if d.Verdict != client.Verify {
			t.Errorf("action %s: %s (%s), want verify", p.Action(), d.Verdict, d.Reason)
		}
	}
	// The same timeout of a write with a key is replayed.
	withKey := problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown)
	if d := testPolicy.Decide(client.Attempt{Method: "POST", Problem: withKey, Number: 1, IdempotencyKey: true}); d.Verdict != client.Retry {
		t.Errorf("keyed write: %s (%s)", d.Verdict, d.Reason)
	}
}

func TestDecideDelays(t *testing.T) {
	retry := problem.New(problem.Unavailable)
	for _, tc := range []struct {
		name    string
		p       *problem.Problem
		number  int
		jitter  float64
		elapsed time.Duration
		verdict client.Verdict
		delay   time.Duration
	}{
		{"no jitter", retry, 1, 0, 0, client.Retry, 0},
		{"full jitter of the first backoff", retry, 1, 0.999, 0, client.Retry, 99900 * time.Microsecond},
		{"doubles", retry, 2, 0.5, 0, client.Retry, 100 * time.Millisecond},
		{"capped", retry, 3, 0.5, 0, client.Retry, 175 * time.Millisecond},
		{"attempts exhausted", retry, 4, 0.5, 0, client.Stop, 0},
		{"retry_after_ms is the floor", problem.New(problem.RateLimited).WithRetryAfter(2 * time.Second), 1, 0.5, 0, client.Retry, 2050 * time.Millisecond},
		{"floor without jitter", problem.New(problem.RateLimited).WithRetryAfter(2 * time.Second), 1, 0, 0, client.Retry, 2 * time.Second},
		{"deadline", retry, 1, 0.5, 9960 * time.Millisecond, client.Stop, 0},
		{"floor past the deadline", problem.New(problem.RateLimited).WithRetryAfter(time.Minute), 1, 0, 0, client.Stop, 0},
		{"jitter out of range", retry, 1, 1.5, 0, client.Retry, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := testPolicy.Decide(client.Attempt{Method: "GET", Problem: tc.p, Number: tc.number, Jitter: tc.jitter, Elapsed: tc.elapsed})
			if d.Verdict != tc.verdict || d.Delay != tc.delay {
				t.Errorf("%s %s (%s), want %s %s", d.Verdict, d.Delay, d.Reason, tc.verdict, tc.delay)
			}
		})
	}
	t.Run("huge attempt numbers do not overflow", func(t *testing.T) {
		d := client.Policy{MaxAttempts: 1 << 30}.Decide(client.Attempt{Method: "GET", Problem: retry, Number: 1 << 29, Jitter: 0.5})
		if d.Verdict != client.Retry || d.Delay != client.DefaultMaxDelay/2 {
			t.Errorf("%s %s", d.Verdict, d.Delay)
		}
	})
	notRetryable := problem.New(problem.Internal).WithRetryable(false)
	if d := testPolicy.Decide(client.Attempt{Method: "GET", Problem: notRetryable, Number: 1}); d.Verdict != client.Stop {
		t.Errorf("retryable false: %s", d.Verdict)
	}
	unknown := problem.New(problem.Internal).WithAction("teleport")
	if d := testPolicy.Decide(client.Attempt{Method: "GET", Problem: unknown, Number: 1}); d.Verdict != client.Stop {
		t.Errorf("unknown action: %s", d.Verdict)
	}
}

// TestDecideForeignStatus: a problem without an action (another server, a
// proxy's page) is judged by HTTP's semantics of its status.
func TestDecideForeignStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		method string
		key    bool
		want   client.Verdict
	}{
		{502, "GET", false, client.Retry},
		{502, "POST", false, client.Verify},
		{502, "POST", true, client.Retry},
		{503, "PATCH", false, client.Verify},
		{429, "POST", false, client.Retry},
		{408, "POST", false, client.Retry},
		{401, "GET", false, client.Reauthenticate},
		{404, "GET", false, client.FixRequest},
		{403, "GET", false, client.Stop},
		{501, "GET", false, client.Stop},
	} {
		p := peer(map[string]any{"status": tc.status})
		d := testPolicy.Decide(client.Attempt{Method: tc.method, Problem: p, Number: 1, IdempotencyKey: tc.key})
		if d.Verdict != tc.want {
			t.Errorf("%d %s key=%v: %s (%s), want %s", tc.status, tc.method, tc.key, d.Verdict, d.Reason, tc.want)
		}
	}
}

func TestDecideTransportErrors(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, tc := range []struct {
		name   string
		err    error
		method string
		key    bool
		want   client.Verdict
	}{
		{"refused write is not started", fmt.Errorf("post: %w", dial), "POST", false, client.Retry},
		{"dns", &net.DNSError{Err: "no such host", Name: "api.invalid"}, "POST", false, client.Retry},
		{"reset after the write", reset, "POST", false, client.Verify},
		{"eof after the write", io.ErrUnexpectedEOF, "PATCH", false, client.Verify},
		{"eof of a keyed write", io.ErrUnexpectedEOF, "POST", true, client.Retry},
		{"eof of a read", io.EOF, "GET", false, client.Retry},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), "GET", false, client.Stop},
		// net/http's own header timeout is a context.DeadlineExceeded
		// although the caller's context has not ended.
		{"transport timeout of a read", context.DeadlineExceeded, "GET", false, client.Retry},
		{"transport timeout of a write", fmt.Errorf("x: %w", context.DeadlineExceeded), "POST", false, client.Verify},
	} {
		d := testPolicy.Decide(client.Attempt{Method: tc.method, Err: tc.err, Number: 1, IdempotencyKey: tc.key})
		if d.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, d.Verdict, d.Reason, tc.want)
		}
	}
	// The caller's context ended: nothing is retried, and a write that may
	// have been sent is still to be verified.
	for _, tc := range []struct {
		name   string
		err    error
		method string
		key    bool
		want   client.Verdict
	}{
		{"deadline of a read", context.DeadlineExceeded, "GET", false, client.Stop},
		{"deadline of a keyed write", context.DeadlineExceeded, "POST", true, client.Stop},
		{"deadline of a write", context.DeadlineExceeded, "POST", false, client.Verify},
		{"deadline of a write while dialing", fmt.Errorf("post: %w", dial), "POST", false, client.Stop},
	} {
		d := testPolicy.Decide(client.Attempt{Method: tc.method, Err: tc.err, ContextErr: context.DeadlineExceeded, Number: 1, IdempotencyKey: tc.key})
		if d.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, d.Verdict, d.Reason, tc.want)
		}
	}
	if d := testPolicy.Decide(client.Attempt{Method: "GET", Number: 1}); d.Verdict != client.Stop {
		t.Errorf("nothing failed: %s", d.Verdict)
	}
}

func TestDecideDoesNotAllocate(t *testing.T) {
	p := problem.New(problem.Unavailable).WithRetryAfter(time.Second)
	err := errors.New("boom")
	allocs := testing.AllocsPerRun(100, func() {
		testPolicy.Decide(client.Attempt{Method: "POST", Problem: p, Number: 2, Jitter: 0.3})
		testPolicy.Decide(client.Attempt{Method: "POST", Err: err, Number: 2, Jitter: 0.3})
	})
	if allocs != 0 {
		t.Errorf("%v allocations per decision", allocs)
	}
}

func TestVerdictString(t *testing.T) {
	for v, want := range map[client.Verdict]string{client.Stop: "stop", client.Retry: "retry", client.Verify: "verify",
		client.Reauthenticate: "reauthenticate", client.FixRequest: "fix_request", client.WaitForApproval: "wait_for_approval", 42: "verdict(42)"} {
		if got := v.String(); got != want {
			t.Errorf("%d: %q, want %q", v, got, want)
		}
	}
}
