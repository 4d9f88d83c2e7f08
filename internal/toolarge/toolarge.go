// Package toolarge builds the one request_too_large problem: the body
// limit middleware and bind both refuse a body with it, so a client sees
// the same detail whichever layer ran into the limit.
package toolarge

import (
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

// Problem is request_too_large naming limit, wrapping err (which may be
// nil), such as the *http.MaxBytesError the limit produced.
func Problem(limit int64, err error) *problem.Problem {
	p := problem.New(problem.RequestTooLarge).WithDetail(problemhook.TooLargeDetail(limit))
	if err != nil {
		p = p.Wrap(err)
	}
	return p
}
