package problem

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// PublicDetailer is implemented by errors that carry text written for
// clients. It is the only way an error contributes a public detail:
// err.Error() is never rendered.
type PublicDetailer interface {
	PublicDetail() string
}

// Mapper turns an error into a problem, or reports that it does not know it.
type Mapper func(err error) (*Problem, bool)

// MapAs returns a Mapper for errors of type E anywhere in a chain, found
// with errors.As, as in `problem.MapAs(func(e *store.NotFoundError) *problem.Problem { ... })`.
func MapAs[E error](fn func(E) *Problem) Mapper {
	return func(err error) (*Problem, bool) {
		var target E
		if !errors.As(err, &target) {
			return nil, false
		}
		p := fn(target)
		return p, p != nil
	}
}

// MapIs returns a Mapper for a sentinel error anywhere in a chain.
func MapIs(sentinel error, fn func() *Problem) Mapper {
	return func(err error) (*Problem, bool) {
		if !errors.Is(err, sentinel) {
			return nil, false
		}
		p := fn()
		return p, p != nil
	}
}

// From maps err with the Writer serving r: the one r's context carries
// (middleware.Stack with WithWriter puts it there), or Default() when r
// carries none. It is the way for a handler to turn an error into a
// problem it then changes or inspects, so a mapping the service
// configured is never bypassed by a second, default configuration.
func From(r *http.Request, err error) *Problem { return writerFor(r).FromError(err) }

// FromError maps any error to a problem: a *Problem in the chain wins, then
// a Kind (a handler may return the code itself), then the writer's mappers
// in order, then the built-in mappings, then internal.
// The result always wraps err, so the whole chain reaches the log; its
// public detail comes only from a Problem, a mapper, or (for the built-in
// mappings) a PublicDetailer in the chain. The result is always a new
// Problem, never one found in the chain: a handler may return a shared
// sentinel, and whoever sets a field on the result must not change it.
func (wr *Writer) FromError(err error) *Problem {
	p := new(Problem)
	wr.fromError(err, p)
	return p
}

// fromError is FromError into p, so that WriteError keeps the problem on
// its stack: an error route then allocates no Problem at all.
func (wr *Writer) fromError(err error, p *Problem) {
	if err == nil {
		*p = problemOf(Internal)
		return
	}
	if np, ok := err.(*Problem); ok && np == nil {
		// A nil *Problem in a non-nil error: a bug in the caller, which
		// still deserves a problem and a log record, not a crash.
		*p = problemOf(Internal)
		p.err = err
		return
	}
	var c chainMatch
	if !c.walk(err) {
		c = chainMatchAs(err)
	}
	if c.problem != nil {
		*p = *c.problem
		if c.problem == err {
			// The problem itself was returned: its own chain is the
			// evidence the log needs.
			p.origin = c.problem
		} else {
			p.err = err
		}
		return
	}
	if c.kind != nil {
		*p = problemOf(*c.kind)
		p.err = err
		return
	}
	for _, m := range wr.mappers {
		if mp, ok := m(err); ok {
			// A copy, as Wrap would make: the mapper may return a shared
			// problem.
			*p = *mp
			p.err = err
			return
		}
	}
	c.builtin(p)
	if c.public != nil {
		if d := c.public.PublicDetail(); d != "" {
			p.Detail = d
		}
	}
	p.err = err
}

// chainMatch holds what FromError looks for in an error chain: the first
// match of each kind, in the order errors.As and errors.Is visit the chain.
type chainMatch struct {
	problem   *Problem
	kind      *Kind
	public    PublicDetailer
	maxBytes  *http.MaxBytesError
	syntax    *json.SyntaxError
	typeError *json.UnmarshalTypeError
	deadline  bool
	canceled  bool
}

// walk visits the chain once with type switches, where one errors.As per
// target would visit it once each and move every target to the heap. It
// reports false, leaving c incomplete, when an error in the chain has an As
// or Is method: such an error may claim a match a type switch cannot see.
func (c *chainMatch) walk(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *Problem:
			// Nothing else counts once a problem is found, and a nil one
			// must not be unwrapped. Its Is method matches only Kinds,
			// which this walk sees itself.
			c.problem = cmp.Or(c.problem, e)
			return true
		case Kind:
			if c.kind == nil {
				c.kind = &e
			}
			return true
		case interface{ As(any) bool }, interface{ Is(error) bool }:
			return false
		}
		switch e := err.(type) {
		case *http.MaxBytesError:
			c.maxBytes = cmp.Or(c.maxBytes, e)
		case *json.SyntaxError:
			c.syntax = cmp.Or(c.syntax, e)
		case *json.UnmarshalTypeError:
			c.typeError = cmp.Or(c.typeError, e)
		}
		if pd, ok := err.(PublicDetailer); ok && c.public == nil {
			c.public = pd
		}
		c.deadline = c.deadline || err == context.DeadlineExceeded
		c.canceled = c.canceled || err == context.Canceled
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if !c.walk(e) {
					return false
				}
			}
			return true
		default:
			return true
		}
	}
	return true
}

// chainMatchAs finds the same matches with errors.As and errors.Is, which
// honour As and Is methods.
func chainMatchAs(err error) chainMatch {
	var c chainMatch
	errors.As(err, &c.problem)
	var k Kind
	if errors.As(err, &k) {
		c.kind = &k
	}
	errors.As(err, &c.public)
	errors.As(err, &c.maxBytes)
	errors.As(err, &c.syntax)
	errors.As(err, &c.typeError)
	c.deadline = errors.Is(err, context.DeadlineExceeded)
	c.canceled = errors.Is(err, context.Canceled)
	return c
}

// builtin sets p to the built-in problem of the match.
func (c *chainMatch) builtin(p *Problem) {
	switch {
	case c.maxBytes != nil:
		*p = problemOf(RequestTooLarge)
		p.Detail = problemhook.TooLargeDetail(c.maxBytes.Limit)
	case c.syntax != nil:
		*p = problemOf(InvalidJSON)
		p.Detail = fmt.Sprintf("The request body is not valid JSON (syntax error at byte %d).", c.syntax.Offset)
	case c.typeError != nil:
		*p = problemOf(InvalidJSON)
		p.Detail = "A value in the request body has the wrong type."
	case c.deadline:
		*p = problemOf(Timeout)
	case c.canceled:
		*p = problemOf(ClientClosedRequest)
	default:
		*p = problemOf(Internal)
	}
}
