package main

import (
	"fmt"
	"time"

	"github.com/faultline-go/faultline/problem"
)

type verdict string

const (
	// verdictRetry sends the same request again after wait.
	verdictRetry verdict = "retry"
	// verdictReport hands the problem back to whoever built the request:
	// sending it again unchanged would fail the same way.
	verdictReport verdict = "report"
	// verdictEscalate needs someone else: new credentials, configuration,
	// an approval or an unlock.
	verdictEscalate verdict = "escalate"
	// verdictStop ends the attempt: the server refused, or retrying is
	// unsafe or pointless.
	verdictStop verdict = "stop"
)

type decision struct {
	verdict verdict
	wait    time.Duration
	why     string
}

// retryPolicy bounds what the client is willing to spend on one request.
type retryPolicy struct {
	maxAttempts int
	backoff     time.Duration // first wait without retry_after_ms; doubles
	maxBackoff  time.Duration
	maxWait     time.Duration // a retry_after_ms above this is not waited for
}

// decide reads only the machine members: action, retryable,
// retry_after_ms, outcome (and code for the message). Title and detail are
// for people and are never parsed. attempt counts the attempts made so far,
// starting at 1; sentKey reports whether the request carried an
// Idempotency-Key.
func decide(p *problem.Problem, attempt int, sentKey bool, pol retryPolicy) decision {
	switch p.Action {
	case problem.ActionNone:
		return decision{verdict: verdictStop, why: p.Code + " is a refusal: not working around it"}
	case problem.ActionFixRequest:
		return decision{verdict: verdictReport, why: "the request must change before it can succeed"}
	case problem.ActionReauthenticate, problem.ActionConfigure, problem.ActionApprove, problem.ActionUnlock:
		return decision{verdict: verdictEscalate, why: "needs " + string(p.Action) + " by someone with the authority"}
	case problem.ActionVerify:
		return decision{verdict: verdictStop, why: "the write may have been applied and carried no Idempotency-Key: verify before anything else"}
	case problem.ActionRetry:
	default:
		return decision{verdict: verdictStop, why: fmt.Sprintf("unknown action %q: not guessing", p.Action)}
	}
	// The client's own rule comes before the server's retryable: replaying a
	// write that may have been applied could apply it twice.
	if p.Outcome == problem.OutcomeUnknown && !sentKey {
		return decision{verdict: verdictStop, why: "the write may have been applied and carried no Idempotency-Key: not replaying it"}
	}
	if !p.Retryable {
		return decision{verdict: verdictStop, why: "the server says retrying will not help"}
	}
	if attempt >= pol.maxAttempts {
		return decision{verdict: verdictStop, why: fmt.Sprintf("gave up after %d attempts", attempt)}
	}
	wait := p.RetryAfter
	if wait <= 0 {
		wait = pol.backoff << (attempt - 1)
		if wait > pol.maxBackoff || wait <= 0 {
			wait = pol.maxBackoff
		}
	}
	if wait > pol.maxWait {
		return decision{verdict: verdictStop, why: fmt.Sprintf("asked to wait %s, more than the %s budget", wait, pol.maxWait)}
	}
	return decision{verdict: verdictRetry, wait: wait, why: "retryable"}
}
