// Package audit records every denied and failed request to a durable sink,
// and in strict mode refuses to run a request it could not audit.
//
// The middleware writes one Event per request that ended in an error status
// (code, status, correlation ID, route, principal when known). In strict
// mode it first writes an "attempt" event, before the handler runs; when the
// sink cannot accept it, the request is answered with the audit_unavailable
// problem (503, outcome not_started) and the handler never runs its side
// effects, so no request passes unaudited. An event the sink refuses after
// the handler ran is written to the log instead, with every field, so none
// is lost.
//
// Mount it inside middleware.Stack (so the correlation ID and the problem
// writer are in place) and before the handlers:
//
//	r.Use(middleware.Stack(...))
//	r.Use(audit.Middleware(sink, audit.Strict()))
package audit

import (
	"context"
	"time"
)

// Event is one audit record.
type Event struct {
	Time time.Time `json:"time"`
	// Kind is "attempt" (strict mode, written before the handler) or
	// "failure" (written after a request ended in an error status).
	Kind          string `json:"kind"`
	CorrelationID string `json:"correlation_id"`
	Method        string `json:"method"`
	// Route is the route pattern when the router exposes it (chi's, also
	// before it has routed; ServeMux's once it has), else the escaped
	// request path through sanitize's log tier.
	Route  string `json:"route"`
	Status int    `json:"status,omitempty"`
	// Code is the problem's code, read from the header the writer sends
	// it under; empty for a bare error status, or when the writer sends
	// no code header (problem.WithCodeHeader("")).
	Code      string `json:"code,omitempty"`
	Principal string `json:"principal,omitempty"`
}

// The kinds of event.
const (
	KindAttempt = "attempt"
	KindFailure = "failure"
)

// Sink accepts audit events durably: Write returns nil only once the event
// is stored (fsynced, acknowledged by a server).
type Sink interface {
	Write(ctx context.Context, e Event) error
}
