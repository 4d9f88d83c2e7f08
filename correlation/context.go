package correlation

import "context"

// ctxKey is unexported and zero-sized so no other package can collide with
// it and converting it to an interface costs nothing.
type ctxKey struct{}

// idContext carries everything the package stores per request in a single
// heap object. It implements context.Context itself instead of going through
// context.WithValue: WithValue would need one allocation for its node and a
// second one to box the value, and this is on every request's path.
//
// Cancellation still propagates without a helper goroutine: Value delegates
// unknown keys (including the context package's own private ones) to the
// parent, and Done returns the parent's channel unchanged.
type idContext struct {
	context.Context
	id      string
	traceID string
	// fromRequest marks a context made by Middleware, as opposed to WithID:
	// an ID a server's BaseContext carries must not be shared by all of its
	// requests, but one an outer Middleware assigned must be kept.
	fromRequest bool
	// hdr backs the response header's value slice so that setting the header
	// does not need an allocation of its own.
	hdr [1]string
}

func (c *idContext) Value(key any) any {
	if key == (ctxKey{}) {
		return c
	}
	return c.Context.Value(key)
}

func fromContext(ctx context.Context) *idContext {
	if ctx == nil {
		return nil
	}
	c, _ := ctx.Value(ctxKey{}).(*idContext)
	return c
}

// ID returns the request's correlation ID, or "" if ctx carries none.
func ID(ctx context.Context) string {
	if c := fromContext(ctx); c != nil {
		return c.id
	}
	return ""
}

// TraceID returns the W3C trace-id (32 lowercase hex digits) of the request's
// valid traceparent header, or "" if it carried none.
func TraceID(ctx context.Context) string {
	if c := fromContext(ctx); c != nil {
		return c.traceID
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
	return &idContext{Context: ctx, id: id, traceID: TraceID(ctx)}
}
