package client

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// Exit codes for command-line tools built on faultline services, so that
// every such tool fails alike and scripts can branch on the class of
// failure without reading the message. 0 is success; the rest are the
// classes ExitCode sorts an error into.
//
//	code  name              when
//	   1  ExitInternal      the server failed on its own (cause internal, a 500),
//	                        or the error is not one the client can classify
//	   2  ExitUsage         the request must change: fix_request
//	   3  ExitAuth          credentials: reauthenticate, or cause auth (forbidden)
//	   4  ExitRefused       a refusal by policy or configuration: none, approve,
//	                        unlock, configure
//	   5  ExitTemporary     a failure that should pass (429, 503, 408, cause
//	                        environment, a connection that could not be made),
//	                        after the retries ran out
//	   6  ExitUpstream      a dependency of the server failed: cause upstream
//	   7  ExitUnknownOutcome a write may or may not have taken effect: verify
//	                        before running the command again
const (
	ExitOK             = 0
	ExitInternal       = 1
	ExitUsage          = 2
	ExitAuth           = 3
	ExitRefused        = 4
	ExitTemporary      = 5
	ExitUpstream       = 6
	ExitUnknownOutcome = 7
)

// ExitCode maps the error of a call to its exit code. A problem is found
// with errors.As; a transport error is temporary unless the request may
// have been written, in which case a write's outcome is unknown. method is
// the request's method ("" for a read).
func ExitCode(method string, err error) int {
	if err == nil {
		return ExitOK
	}
	var p *problem.Problem
	if !errors.As(err, &p) || p == nil {
		d := Policy{MaxAttempts: 2}.Decide(Attempt{Method: method, Err: err, Number: 1})
		switch d.Verdict {
		case Retry:
			return ExitTemporary
		case Verify:
			return ExitUnknownOutcome
		}
		return ExitInternal
	}
	action := p.Action
	if action == "" {
		action = statusRule(p.Status).action
	}
	switch {
	case action == problem.ActionVerify ||
		!idempotent(method) && p.Outcome == problem.OutcomeUnknown:
		return ExitUnknownOutcome
	case action == problem.ActionReauthenticate || p.Cause == problem.CauseAuth:
		return ExitAuth
	case action == problem.ActionFixRequest:
		return ExitUsage
	case action == problem.ActionNone, action == problem.ActionApprove,
		action == problem.ActionUnlock, action == problem.ActionConfigure:
		return ExitRefused
	case p.Cause == problem.CauseUpstream:
		return ExitUpstream
	case p.Status == http.StatusServiceUnavailable, p.Status == http.StatusTooManyRequests,
		p.Status == http.StatusRequestTimeout, p.Cause == problem.CauseEnvironment:
		return ExitTemporary
	case p.Cause == problem.CauseInternal:
		return ExitInternal
	case action == problem.ActionRetry:
		return ExitTemporary
	}
	return ExitInternal
}

// Line renders an error as the one-line "<code>: <message>" of a command's
// standard error. A problem without a code (from a server that does not
// speak the contract) is named by its status, as "http_502"; any other
// error is "error: " and its text, on one line.
func Line(err error) string {
	var p *problem.Problem
	if errors.As(err, &p) && p != nil {
		if p.Code == "" {
			// CLILine renders an empty code as nothing before ": ".
			return "http_" + strconv.Itoa(p.Status) + p.CLILine()
		}
		return p.CLILine()
	}
	if err == nil {
		return ""
	}
	return "error: " + oneLine(err.Error())
}

// oneLine folds control characters into spaces (see sanitize.IsEscaped),
// so a transport error's text, which may quote what a server sent, can
// neither start a line of its own nor drive the terminal.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if sanitize.IsEscaped(r) {
			return ' '
		}
		return r
	}, s)
}
