package correlation

import (
	"context"

	"github.com/faultline-go/faultline/internal/corrstate"
)

// idContext is the context Middleware and WithID make. It implements
// context.Context itself instead of going through context.WithValue:
// WithValue would need one allocation for its node and a second one to box
// the value, and this is on every request's path.
//
// Cancellation still propagates without a helper goroutine: Value delegates
// unknown keys (including the context package's own private ones) to the
// parent, and Done returns the parent's channel unchanged.
type idContext struct {
	context.Context
	req corrstate.Request
}

// Value answers for req even when it was not accepted, so that a WithID
// context hides whatever its parent carries.
func (c *idContext) Value(key any) any {
	if key == (corrstate.Key{}) {
		return &c.req
	}
	return c.Context.Value(key)
}

// ID returns the request's correlation ID, or "" if ctx carries none.
func ID(ctx context.Context) string {
	if v := corrstate.From(ctx); v != nil {
		return v.ID
	}
	return ""
}

// WithID returns a copy of ctx carrying id as its correlation ID, for tests,
// background jobs and outgoing clients. The id is trusted as given; check it
// with Valid first if it came from outside. A trace ID already in ctx is kept,
// because re-keying a job does not leave the trace it belongs to.
func WithID(ctx context.Context, id string) context.Context {
	if ctx == nil {
		// Fail here, like context.WithValue, rather than at the first
		// lookup of some unrelated key far away.
		panic("correlation: WithID called with a nil Context")
	}
	var trace string
	if v := corrstate.From(ctx); v != nil {
		trace = v.TraceID
	}
	return &idContext{Context: ctx, req: corrstate.Request{ID: id, TraceID: trace}}
}
