// Package corrstate is the correlation a request carries, shared by package
// correlation, which accepts it and reads it back, and faultline's
// middleware, which keeps it inside its own per-request state so that the
// correlation costs no allocation of its own. Users never see it: they call
// correlation.ID and correlation.Middleware, and read the trace ID in the
// trace_id of the records correlation.NewHandler annotates.
package corrstate

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Key is the context key of a *Request. It is zero-sized so converting it
// to an interface costs nothing.
type Key struct{}

// Request is one request's correlation: its ID, its trace ID, and the
// backing array of the response header's value, so that setting the header
// does not need an allocation of its own. The zero value carries nothing;
// an Acceptor fills it in.
type Request struct {
	ID      string
	TraceID string
	// Accepted marks a Request an Acceptor filled in, as opposed to one
	// correlation.WithID made: an ID a server's BaseContext carries must not
	// be shared by all of its requests, but one an outer middleware
	// assigned must be kept.
	Accepted bool
	// Generated marks an ID the Acceptor made itself (a UUIDv7) rather
	// than took from the request.
	Generated bool
	Hdr       [1]string
}

// Value answers the lookup of Key once v is accepted. A context that holds
// v calls it from its own Value method and falls back to its parent when ok
// is false.
func (v *Request) Value(key any) (val any, ok bool) {
	if key == (Key{}) && v.Accepted {
		return v, true
	}
	return nil, false
}

// From returns the Request ctx carries, or nil.
func From(ctx context.Context) *Request {
	if ctx == nil {
		return nil
	}
	v, _ := ctx.Value(Key{}).(*Request)
	return v
}

// Acceptor is what correlation.Middleware does to each request: fill in v
// for r, set the response header on w, and log a rejected inbound ID to
// env.Logger(), asked only then. It is safe for concurrent use.
type Acceptor interface {
	Accept(v *Request, w http.ResponseWriter, r *http.Request, env Env)
	// ResponseHeader is the name, canonical, of the header Accept sets.
	ResponseHeader() string
}

// Env is what an Acceptor asks of the request's surroundings, and only when
// it needs it: the logger a rejected ID is reported to (faultline's
// middleware state answers with its problem writer's logger, so the logger
// is configured once), and the time a fresh ID is stamped with (the state
// reads the clock once per request for the ID and the deadline together).
type Env interface {
	Logger() *slog.Logger
	Now() time.Time
}

// NewAcceptor returns the Acceptor of correlation.Middleware(opts...), opts
// being a []correlation.Option. Package correlation sets it when it is
// initialised, which happens before any package importing it runs.
var NewAcceptor func(opts any) Acceptor

// NewMiddleware returns correlation.Middleware(opts...) reporting to env
// instead of slog.Default, for serve.Run, which accepts the ID in front of
// a service's Stack on its writer's behalf. Set with NewAcceptor.
var NewMiddleware func(opts any, env Env) func(http.Handler) http.Handler

// NewID returns a fresh correlation ID as correlation.Middleware generates
// them (a UUIDv7), for mcpfault, which gives a call over a transport
// without an HTTP request its own. Set by package correlation, as
// NewAcceptor is.
var NewID func() string
