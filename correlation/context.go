package correlation

import "context"

// ctxKey is unexported and zero-sized so no other package can collide with
// it and converting it to an interface costs nothing.
type ctxKey struct{}

// Request is one request's correlation: its ID, its trace ID, and the
// backing array of the response header's value, so that setting the header
// does not need an allocation of its own. The zero value carries nothing;
// Acceptor.Accept fills it in.
//
// Request is meant to be a field of a per-request object that implements
// context.Context, so that a server's whole per-request state can live in
// one allocation; that object's Value method asks Request.Value first.
type Request struct {
	id      string
	traceID string
	// accepted marks a Request filled in by Accept, as opposed to one made
	// by WithID: an ID a server's BaseContext carries must not be shared by
	// all of its requests, but one an outer Middleware assigned must be kept.
	accepted bool
	hdr      [1]string
}

// Value answers the lookup ID and TraceID make, once v is accepted. A
// context that holds v calls it from its own Value method and falls back
// to its parent when ok is false.
func (v *Request) Value(key any) (val any, ok bool) {
	if key == (ctxKey{}) && v.accepted {
		return v, true
	}
	return nil, false
}

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
	req Request
}

// Value answers for req even when it was not accepted, so that a WithID
// context hides whatever its parent carries.
func (c *idContext) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.req
	}
	return c.Context.Value(key)
}

func fromContext(ctx context.Context) *Request {
	if ctx == nil {
		return nil
	}
	v, _ := ctx.Value(ctxKey{}).(*Request)
	return v
}

// ID returns the request's correlation ID, or "" if ctx carries none.
func ID(ctx context.Context) string {
	if v := fromContext(ctx); v != nil {
		return v.id
	}
	return ""
}

// TraceID returns the W3C trace-id (32 lowercase hex digits) of the request's
// valid traceparent header, or "" if it carried none.
func TraceID(ctx context.Context) string {
	if v := fromContext(ctx); v != nil {
		return v.traceID
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
	return &idContext{Context: ctx, req: Request{id: id, traceID: TraceID(ctx)}}
}
