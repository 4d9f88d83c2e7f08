package client

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/faultline-go/faultline/problem"
)

// Verdict is what the caller does after a failed attempt.
type Verdict uint8

// The verdicts. The zero value is Stop, so a Decision nobody filled in never
// causes a retry.
const (
	// Stop: nothing the client can do will help now (a refusal, retries
	// exhausted, a deadline, a write that was already committed).
	Stop Verdict = iota
	// Retry: send the same request again after Decision.Delay.
	Retry
	// Verify: the outcome of a write is unknown. Find out whether it took
	// effect (by its Idempotency-Key, an operation id or a read) before
	// doing anything else; never replay it blindly.
	Verify
	// Reauthenticate: get new credentials, then try again.
	Reauthenticate
	// FixRequest: the request must change before it can succeed.
	FixRequest
	// WaitForApproval: a person or policy must approve the operation first.
	WaitForApproval
)

var verdictNames = [...]string{"stop", "retry", "verify", "reauthenticate", "fix_request", "wait_for_approval"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// Decision is Decide's answer.
type Decision struct {
	Verdict Verdict
	// Delay is how long to wait before the retry; zero unless Verdict is
	// Retry.
	Delay time.Duration
	// Reason says why, in words for logs and people; never branch on it.
	Reason string
	// exit is ExitCode's answer, set by the same rule that set Verdict so
	// the two cannot disagree; zero in a Decision Decide did not make.
	exit uint8
}

// exitCode is the exit code (see ExitOK) of a command that ends on this
// decision. It follows from the verdict: Verify, and a committed write
// that may not be repeated, are ExitUnknownOutcome; ExitTemporary and
// ExitUpstream are only ever given to a failure Decide retries (or would,
// had the budget not run out); FixRequest is ExitUsage, Reauthenticate
// ExitAuth, WaitForApproval and the refusals ExitRefused. The decision of
// an attempt that carried an Idempotency-Key says a retry is safe under
// that key; running the command again with a new one is not (ExitCode
// counts only a key the caller set). A Decision that Decide did not make
// is ExitInternal.
func (d Decision) exitCode() int {
	if d.exit == 0 {
		return ExitInternal
	}
	return int(d.exit)
}

// Policy bounds what a client spends on one operation. A zero field takes
// the default named on it.
type Policy struct {
	// MaxAttempts counts every attempt, the first included. Default 3.
	MaxAttempts int
	// BaseDelay is the backoff of the first retry; it doubles on each
	// retry up to MaxDelay. Default 100ms.
	BaseDelay time.Duration
	// MaxDelay caps the backoff, not the server's floor. Default 5s.
	MaxDelay time.Duration
	// MaxElapsed is the operation's total budget: no retry is scheduled
	// that would start after it, the time spent reading error bodies
	// counted (Transport cuts such a read short when the budget ends).
	// A Transport ends it sooner when the request's context has an earlier
	// deadline. Default 30s.
	MaxElapsed time.Duration
}

// Default values of Policy's fields.
const (
	DefaultMaxAttempts = 3
	DefaultBaseDelay   = 100 * time.Millisecond
	DefaultMaxDelay    = 5 * time.Second
	DefaultMaxElapsed  = 30 * time.Second
)

func (pol Policy) withDefaults() Policy {
	if pol.MaxAttempts <= 0 {
		pol.MaxAttempts = DefaultMaxAttempts
	}
	if pol.BaseDelay <= 0 {
		pol.BaseDelay = DefaultBaseDelay
	}
	if pol.MaxDelay <= 0 {
		pol.MaxDelay = DefaultMaxDelay
	}
	if pol.MaxElapsed <= 0 {
		pol.MaxElapsed = DefaultMaxElapsed
	}
	return pol
}

// Attempt describes one failed attempt of an operation, the input of
// Decide.
type Attempt struct {
	// Method is the request's method.
	Method string
	// Problem is what the server answered; nil for a transport error.
	Problem *problem.Problem
	// Err is the transport error when the server did not answer.
	Err error
	// ContextErr is the request context's Err() when the attempt ended:
	// nil while the caller still waits. It is how Decide tells the
	// caller's deadline or cancellation (no more attempts) from a timeout
	// of the transport's own, such as http.Transport's
	// ResponseHeaderTimeout, which net/http also reports as
	// context.DeadlineExceeded. Transport sets it; a caller of Decide
	// should too. A context.Canceled in Err counts as the caller's.
	ContextErr error
	// Number is the attempt's number, the first being 1.
	Number int
	// Elapsed is the time since the operation's first attempt started.
	Elapsed time.Duration
	// IdempotencyKey reports whether the request carried an
	// Idempotency-Key, which makes replaying a write safe.
	IdempotencyKey bool
	// Jitter is a uniformly distributed number in [0, 1) the caller draws;
	// it keeps Decide pure and its tests exact.
	Jitter float64
}

// The reasons Decide gives, fixed strings so deciding never allocates.
const (
	reasonRetry        = "retryable failure"
	reasonAttempts     = "attempts exhausted"
	reasonDeadline     = "the next attempt would start after the operation's deadline"
	reasonNotRetryable = "the server says retrying will not help"
	reasonUnknown      = "the write may have taken effect and carried no Idempotency-Key: verify before anything else"
	reasonCommitted    = "the write took effect; replaying it without an Idempotency-Key would apply it twice"
	reasonVerify       = "the server asks to verify the outcome first"
	reasonFix          = "the request must change"
	reasonReauth       = "credentials are missing, expired or invalid"
	reasonApprove      = "the operation needs an approval"
	reasonRefused      = "the server refuses: do not work around it"
	reasonConfigure    = "the server needs configuration first"
	reasonUnlock       = "the resource is locked until someone releases it"
	reasonUnknownAct   = "unknown action: not guessing"
	reasonCanceled     = "the request's context ended"
	reasonTLS          = "the server's certificate was not accepted"
	reasonNothing      = "nothing failed"
)

// Decide says what to do after a failed attempt, from the machine members
// alone (action, retryable, retry_after_ms, outcome; title and detail are
// prose and are never read), and with it the exit code a command ending
// there returns (ExitCode):
//
//   - action verify is verified, and so is a write (a method that is not
//     idempotent) that carried no Idempotency-Key and whose outcome is
//     unknown, whatever the action: it may have taken effect, and sending
//     it again, as is or changed, could apply it twice. A problem without
//     an outcome whose action is retry (or that has no action) has the
//     one its status implies: unknown for any 5xx, not_started for 408,
//     425 and 429. An outcome this package does not know is read as
//     unknown.
//   - Otherwise the action decides: fix_request, reauthenticate and
//     approve map to their verdicts; none, configure, unlock and actions
//     this package does not know stop. A problem without an action (from
//     a server that does not speak the contract) is judged by its status.
//   - For retry: a write without a key that was committed stops, never
//     replayed; the end of the request's context stops
//     (Attempt.ContextErr); then retryable false stops; so do MaxAttempts
//     and MaxElapsed.
//   - The delay is retry_after_ms (or Retry-After) as a floor, plus full
//     jitter over the exponential backoff: floor + Jitter*min(MaxDelay,
//     BaseDelay*2^(Number-1)).
//   - A transport error is a retry whose outcome is not_started when the
//     request cannot have been written (dialing, DNS) and unknown
//     otherwise, a timeout of the transport included. A rejected
//     certificate stops.
func (pol Policy) Decide(a Attempt) Decision {
	pol = pol.withDefaults()
	var (
		action    problem.Action
		outcome   problem.Outcome
		cause     problem.Cause
		retryable bool
		floor     time.Duration
		status    int
	)
	ended := a.ContextErr != nil
	switch {
	case a.Problem != nil:
		p := a.Problem
		action, outcome, cause, retryable, floor, status = p.Action(), p.Outcome(), p.Cause(), p.Retryable(), p.RetryAfter(), p.Status()
		s := statusRule(p.Status())
		if action == "" {
			action, retryable = s.action, s.retryable
		}
		if outcome == "" && action == problem.ActionRetry {
			// A server that says retry without saying what became of a
			// write has not verified it: a 5xx leaves it unknown, as it
			// does for a server that says nothing at all.
			outcome = s.outcome
		}
	case a.Err != nil:
		var c transportClass
		c.walk(a.Err)
		if c.certRejected {
			return Decision{Verdict: Stop, Reason: reasonTLS, exit: ExitInternal}
		}
		action, retryable, outcome = problem.ActionRetry, true, problem.OutcomeUnknown
		if c.notWritten {
			outcome = problem.OutcomeNotStarted
		}
		// net/http's own timeouts are context.DeadlineExceeded too;
		// only a cancellation says who ended the wait.
		ended = ended || errors.Is(a.Err, context.Canceled)
	default:
		return Decision{Verdict: Stop, Reason: reasonNothing}
	}

	if action == problem.ActionVerify {
		return Decision{Verdict: Verify, Reason: reasonVerify, exit: ExitUnknownOutcome}
	}
	// A write that may have taken effect is verified before anything else,
	// whatever the action, as the kit's Writer turns it into verify: only
	// an Idempotency-Key makes sending it again (as is or changed) safe.
	// An outcome outside the closed set says no more than unknown.
	write := !idempotent(a.Method) && !a.IdempotencyKey
	if write {
		switch outcome {
		case "", problem.OutcomeNotStarted, problem.OutcomeNotCommitted, problem.OutcomeCommitted:
		default:
			return Decision{Verdict: Verify, Reason: reasonUnknown, exit: ExitUnknownOutcome}
		}
	}
	refused := uint8(ExitRefused)
	if cause == problem.CauseAuth {
		refused = ExitAuth
	}
	switch action {
	case problem.ActionRetry:
	case problem.ActionFixRequest:
		exit := uint8(ExitUsage)
		if cause == problem.CauseAuth {
			exit = ExitAuth
		}
		return Decision{Verdict: FixRequest, Reason: reasonFix, exit: exit}
	case problem.ActionReauthenticate:
		return Decision{Verdict: Reauthenticate, Reason: reasonReauth, exit: ExitAuth}
	case problem.ActionApprove:
		return Decision{Verdict: WaitForApproval, Reason: reasonApprove, exit: refused}
	case problem.ActionNone:
		return Decision{Verdict: Stop, Reason: reasonRefused, exit: refused}
	case problem.ActionConfigure:
		return Decision{Verdict: Stop, Reason: reasonConfigure, exit: refused}
	case problem.ActionUnlock:
		return Decision{Verdict: Stop, Reason: reasonUnlock, exit: refused}
	default:
		return Decision{Verdict: Stop, Reason: reasonUnknownAct, exit: refused}
	}
	// The client's own rule comes before the server's retryable: a server
	// may believe a replay is harmless, but only a key makes it so.
	if write && outcome == problem.OutcomeCommitted {
		return Decision{Verdict: Stop, Reason: reasonCommitted, exit: ExitUnknownOutcome}
	}
	if ended {
		return Decision{Verdict: Stop, Reason: reasonCanceled, exit: ExitInternal}
	}
	if !retryable {
		return Decision{Verdict: Stop, Reason: reasonNotRetryable, exit: ExitInternal}
	}
	// From here on the failure is one a retry can fix: its exit code says
	// so, whether this operation still has the budget to retry or not.
	exit := retryExit(status, cause)
	if a.Number >= pol.MaxAttempts {
		return Decision{Verdict: Stop, Reason: reasonAttempts, exit: exit}
	}
	// Compared against what is left of the budget rather than summed, so
	// that an absurd floor (retry_after_ms of centuries) cannot wrap
	// around into a negative delay or a sleep past the deadline.
	floor = max(floor, 0)
	left := pol.MaxElapsed - max(a.Elapsed, 0)
	if floor >= left {
		return Decision{Verdict: Stop, Reason: reasonDeadline, exit: exit}
	}
	delay := floor + jittered(pol.backoff(a.Number), a.Jitter)
	if delay >= left {
		return Decision{Verdict: Stop, Reason: reasonDeadline, exit: exit}
	}
	return Decision{Verdict: Retry, Delay: delay, Reason: reasonRetry, exit: exit}
}

// retryExit is the exit code of a failure a retry can fix: whose failure
// it is when the server said so (a dependency's, the server's own), else
// temporary.
func retryExit(status int, cause problem.Cause) uint8 {
	switch {
	case cause == problem.CauseUpstream:
		return ExitUpstream
	case status == http.StatusServiceUnavailable, status == http.StatusTooManyRequests,
		status == http.StatusRequestTimeout, cause == problem.CauseEnvironment:
		return ExitTemporary
	case cause == problem.CauseInternal:
		return ExitInternal
	}
	return ExitTemporary
}

// backoff is BaseDelay doubled per retry already made, capped at MaxDelay
// without overflowing.
func (pol Policy) backoff(n int) time.Duration {
	d := pol.BaseDelay
	for i := 1; i < n && d < pol.MaxDelay; i++ {
		d *= 2
	}
	return min(d, pol.MaxDelay)
}

func jittered(d time.Duration, j float64) time.Duration {
	if !(j > 0) || j >= 1 {
		return 0
	}
	return time.Duration(j * float64(d))
}

// idempotent reports whether replaying the method is harmless (RFC 9110
// §9.2.2).
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace,
		http.MethodPut, http.MethodDelete, "":
		return true
	}
	return false
}

// transportClass is what a transport error's chain says. Only failures to
// connect (dialing, DNS) are known to come before the request was written;
// everything else (a reset, an EOF while waiting for the response, a
// timeout) may follow a server that received it.
type transportClass struct {
	notWritten   bool
	certRejected bool
}

// walk visits the chain with type switches: errors.As would move each
// target to the heap, and deciding must not allocate.
func (c *transportClass) walk(err error) {
	for err != nil {
		switch e := err.(type) {
		case *net.OpError:
			c.notWritten = c.notWritten || e.Op == "dial"
		case *net.DNSError:
			c.notWritten = true
		case *tls.CertificateVerificationError:
			c.certRejected = true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				c.walk(e)
			}
			return
		default:
			return
		}
	}
}

// statusVerdict is how a status is read when the problem has no action:
// the response came from a server (or a proxy) that does not speak the
// contract, so only HTTP's own semantics are known.
type statusVerdict struct {
	action    problem.Action
	retryable bool
	outcome   problem.Outcome
}

// statusRule is the one table of status semantics. 408, 425 and 429 say
// the request was not processed; every 5xx says nothing about a write, so
// its outcome is unknown.
func statusRule(status int) statusVerdict {
	switch status {
	case http.StatusUnauthorized, http.StatusProxyAuthRequired:
		return statusVerdict{action: problem.ActionReauthenticate}
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests:
		return statusVerdict{action: problem.ActionRetry, retryable: true, outcome: problem.OutcomeNotStarted}
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return statusVerdict{action: problem.ActionRetry, retryable: true, outcome: problem.OutcomeUnknown}
	case http.StatusForbidden, http.StatusUnavailableForLegalReasons:
		return statusVerdict{action: problem.ActionNone}
	}
	if status >= 400 && status < 500 {
		return statusVerdict{action: problem.ActionFixRequest}
	}
	// Any other server error may come after the handler ran (a 507 once it
	// wrote, a CDN's 524 once the origin took the request): a problem that
	// says retry about it says nothing of a write, which stays unknown.
	return statusVerdict{action: problem.ActionNone, outcome: problem.OutcomeUnknown}
}
