package problem

import (
	"cmp"
	"context"
	"errors"
	"net/http"
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

// FromError maps err with wr, for a surface without an HTTP request (a
// JSON-RPC server on stdio, a queue consumer); a handler uses From, which
// finds the serving Writer itself. A *Problem in the chain wins, then
// a Kind (a handler may return the code itself), then the writer's mappers
// in order, then the built-in mappings (context.DeadlineExceeded is
// timeout, context.Canceled client_closed_request, which a Writer sends as
// internal to a request whose context is still alive: its client closed
// nothing), then internal. An error
// of reading or decoding JSON is internal unless it came from reading this
// request's body through bind or middleware.BodyLimit, which return the
// request's problem (invalid_json, request_too_large) as the error itself:
// a handler that decodes an upstream's answer must not tell its client to
// fix a request that was fine.
// The result always wraps err, so the whole chain reaches the log; its
// public detail comes only from a Problem, a mapper, or (for the built-in
// mappings) a PublicDetailer in the chain. The result is always a new
// Problem, never one found in the chain: a handler may return a shared
// sentinel, and whoever sets a field on the result must not change it.
func (wr *Writer) FromError(err error) *Problem {
	p := new(Problem)
	wr.usable().fromError(err, p)
	return p
}

// fromError is FromError into p, so that a returned error keeps the problem on
// its stack: an error route then allocates no Problem at all.
func (wr *Writer) fromError(err error, p *Problem) {
	if err == nil {
		p.become(Internal)
		return
	}
	if np, ok := err.(*Problem); ok && np == nil {
		// A nil *Problem in a non-nil error: a bug in the caller, which
		// still deserves a problem and a log record, not a crash.
		p.become(Internal)
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
		p.become(*c.kind)
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
			p.detail = d
		}
	}
	p.err = err
}

// chainMatch holds what FromError looks for in an error chain: the first
// match of each kind, in the order errors.As and errors.Is visit the chain.
type chainMatch struct {
	problem  *Problem
	kind     *Kind
	public   PublicDetailer
	deadline bool
	canceled bool
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
	c.deadline = errors.Is(err, context.DeadlineExceeded)
	c.canceled = errors.Is(err, context.Canceled)
	return c
}

// builtin sets p to the built-in problem of the match. None of them
// blames the request: a *json.SyntaxError, *json.UnmarshalTypeError,
// *http.MaxBytesError, io.ErrUnexpectedEOF or mime error can come from
// anything the handler read (an upstream's response, a file), so it is the
// server's failure. The problems that blame this request's body
// (invalid_json, request_too_large, unsupported_media_type,
// validation_failed) are made where the kit reads that body, by bind and
// middleware.BodyLimit, whose read errors are those problems themselves.
func (c *chainMatch) builtin(p *Problem) {
	switch {
	case c.deadline:
		*p = *fallbacks.timeout
	case c.canceled:
		*p = *fallbacks.canceled
	default:
		*p = *fallbacks.internal
	}
}

// fallbacks are the occurrences builtin copies (New's, of built-in codes,
// which mean what the catalog says everywhere), found in the catalog once:
// every error no mapping knows ends here, and looking its code up costs
// more than copying the occurrence.
var fallbacks = struct{ internal, timeout, canceled *Problem }{
	builtinTemplates[Internal].occ, builtinTemplates[Timeout].occ, builtinTemplates[ClientClosedRequest].occ,
}
