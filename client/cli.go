package client

import (
	"errors"
	"strconv"
	"strings"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/internal/textclass"
	"github.com/faultline-go/faultline/problem"
)

// Exit codes for command-line tools built on faultline services, so that
// every such tool fails alike and scripts can branch on the class of
// failure without reading the message. 0 is success; the rest are the
// classes ExitCode sorts an error into, from the same rule as Decide's
// verdict, so a script never reruns what Decide would not replay:
//
//	code  name              when
//	   1  ExitInternal      the server failed on its own (cause internal, a 500),
//	                        the server says retrying will not help, the
//	                        request's context ended, or the error is not one
//	                        the client can classify
//	   2  ExitUsage         the request must change: fix_request
//	   3  ExitAuth          credentials: reauthenticate, or cause auth (forbidden)
//	   4  ExitRefused       a refusal by policy or configuration: none, approve,
//	                        unlock, configure, an action the client does not know
//	   5  ExitTemporary     a failure a retry can fix (429, 503, 408, cause
//	                        environment, a connection that could not be made,
//	                        a read that timed out), after the retries ran out
//	   6  ExitUpstream      the same, when a dependency of the server failed:
//	                        cause upstream
//	   7  ExitUnknownOutcome a write may have taken effect (or did): verify
//	                        before running the command again
//
// Only 5 and 6 say that running the command again is safe.
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

// ExitCode maps the error of a call to its exit code: that of Decide's
// decision for a first attempt with the default Policy, the problem found
// with errors.As or else the transport error. The attempt carried an
// Idempotency-Key only when the error is a ResponseError whose request had
// one its sender chose: a key a Transport generated (WithIdempotencyKeys)
// dies with the process, and running the command again sends a new one.
// A context.DeadlineExceeded in err is read as a timeout, a
// context.Canceled as the caller's own end. method is the request's method
// ("" for a read).
func ExitCode(method string, err error) int {
	if err == nil {
		return ExitOK
	}
	a := Attempt{Method: method, Number: 1}
	var p *problem.Problem
	if errors.As(err, &p) && p != nil {
		a.Problem = p
		var re *ResponseError
		a.IdempotencyKey = errors.As(err, &re) && re.keyed
	} else {
		a.Err = err
	}
	return Policy{}.Decide(a).exitCode()
}

// Line renders an error as the one-line "<code>: <message>" of a command's
// standard error. A problem without a code (from a server that does not
// speak the contract) is named by its status, as "http_502"; any other
// error is "error: " and its text, on one line.
func Line(err error) string {
	var p *problem.Problem
	if errors.As(err, &p) && p != nil {
		if p.Code() == "" {
			// The line renders an empty code as nothing before ": ".
			return "http_" + strconv.Itoa(p.Status()) + problemhook.CLILine(p)
		}
		return problemhook.CLILine(p)
	}
	if err == nil {
		return ""
	}
	return "error: " + oneLine(err.Error())
}

// oneLine folds control characters into spaces (see textclass.IsEscaped),
// so a transport error's text, which may quote what a server sent, can
// neither start a line of its own nor drive the terminal.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if textclass.IsEscaped(r) {
			return ' '
		}
		return r
	}, s)
}
