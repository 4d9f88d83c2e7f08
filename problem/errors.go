package problem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// FromError maps err with the default Writer's mappers.
func FromError(err error) *Problem { return Default().FromError(err) }

// FromError maps any error to a problem: a *Problem in the chain wins, then
// the writer's mappers in order, then the built-in mappings, then internal.
// The result always wraps err, so the whole chain reaches the log; its
// public detail comes only from a Problem, a mapper, or (for the built-in
// mappings) a PublicDetailer in the chain.
func (wr *Writer) FromError(err error) *Problem {
	if err == nil {
		return New(Internal)
	}
	var found *Problem
	if errors.As(err, &found) {
		if found == err {
			return found
		}
		p := found.clone()
		p.err = err
		return &p
	}
	for _, m := range wr.mappers {
		if p, ok := m(err); ok {
			return p.Wrap(err)
		}
	}
	return withPublicDetail(builtinMapping(err), err).Wrap(err)
}

func builtinMapping(err error) *Problem {
	var (
		maxBytes  *http.MaxBytesError
		syntax    *json.SyntaxError
		typeError *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &maxBytes):
		return New(RequestTooLarge).WithDetail(TooLargeDetail(maxBytes.Limit))
	case errors.As(err, &syntax):
		return New(InvalidJSON).WithDetail(fmt.Sprintf("The request body is not valid JSON (syntax error at byte %d).", syntax.Offset))
	case errors.As(err, &typeError):
		return New(InvalidJSON).WithDetail("A value in the request body has the wrong type.")
	case errors.Is(err, context.DeadlineExceeded):
		return New(Timeout)
	case errors.Is(err, context.Canceled):
		return New(ClientClosedRequest)
	}
	return New(Internal)
}

// TooLargeDetail is the public detail of request_too_large, naming the limit
// so the client knows how much to cut.
func TooLargeDetail(limit int64) string {
	return fmt.Sprintf("The request body exceeds the limit of %d bytes.", limit)
}

func withPublicDetail(p *Problem, err error) *Problem {
	var pd PublicDetailer
	if errors.As(err, &pd) {
		if d := pd.PublicDetail(); d != "" {
			p.WithDetail(d)
		}
	}
	return p
}
