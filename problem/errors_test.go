package problem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// claims is an error whose As method answers for a type it is not.
type claims struct{ target any }

func (claims) Error() string { return "claims" }
func (c claims) As(target any) bool {
	switch t := target.(type) {
	case **Problem:
		if p, ok := c.target.(*Problem); ok {
			*t = p
			return true
		}
	case **http.MaxBytesError:
		if m, ok := c.target.(*http.MaxBytesError); ok {
			*t = m
			return true
		}
	}
	return false
}

// isCanceled says it is context.Canceled without being it.
type isCanceled struct{}

func (isCanceled) Error() string        { return "gone" }
func (isCanceled) Is(target error) bool { return target == context.Canceled }

// The single walk finds what errors.As and errors.Is find whenever it does
// not give up.
func TestChainWalkMatchesErrorsAs(t *testing.T) {
	p := New(Conflict)
	syntax := json.Unmarshal([]byte("{"), &struct{}{})
	chains := []error{
		errors.New("plain"),
		fmt.Errorf("a: %w", fmt.Errorf("b: %w", context.DeadlineExceeded)),
		fmt.Errorf("a: %w", p),
		fmt.Errorf("a: %w", New(Timeout).Wrap(&http.MaxBytesError{Limit: 1})),
		errors.Join(errors.New("x"), &http.MaxBytesError{Limit: 2}, &http.MaxBytesError{Limit: 3}, context.Canceled),
		errors.Join(fmt.Errorf("w: %w", syntax), p, &publicTimeout{}),
		fmt.Errorf("two: %w, %w", &publicTimeout{}, context.Canceled),
		&json.UnmarshalTypeError{},
	}
	for _, err := range chains {
		var c chainMatch
		if !c.walk(err) {
			t.Errorf("walk(%v) gave up without an As or Is method", err)
			continue
		}
		want := chainMatchAs(err)
		if want.problem != nil {
			// A problem wins outright; the walk need not look further.
			want = chainMatch{problem: want.problem}
			c = chainMatch{problem: c.problem}
		}
		if c != want {
			t.Errorf("walk(%v) = %+v, errors.As finds %+v", err, c, want)
		}
	}
}

// Errors with As or Is methods are honoured.
func TestFromErrorHonoursAsAndIs(t *testing.T) {
	wr := NewWriter()
	sentinel := New(PolicyDenied)
	cases := []struct {
		err  error
		code string
	}{
		{fmt.Errorf("a: %w", claims{sentinel}), "policy_denied"},
		{errors.Join(claims{&http.MaxBytesError{Limit: 9}}, context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("a: %w", isCanceled{}), "client_closed_request"},
		{errors.Join(errors.New("x"), fmt.Errorf("b: %w", isCanceled{})), "client_closed_request"},
	}
	for _, c := range cases {
		if p := wr.FromError(c.err); p.code != c.code {
			t.Errorf("FromError(%v) = %s, want %s", c.err, p.code, c.code)
		}
	}
}

// TestFallbacksAreNew: what an error no mapping knows becomes is exactly
// New of its built-in code.
func TestFallbacksAreNew(t *testing.T) {
	for err, k := range map[error]Kind{
		errors.New("x"):                       Internal,
		fmt.Errorf("w: %w", context.Canceled): ClientClosedRequest,
		context.DeadlineExceeded:              Timeout,
	} {
		var p Problem
		NewWriter().fromError(err, &p)
		want := *New(k)
		want.err = err
		if !reflect.DeepEqual(p, want) {
			t.Errorf("%v: %+v, want %+v", err, p, want)
		}
	}
}
