package problem

import (
	"context"
	"net/http"
)

type writerKey struct{}

// NewContext returns a copy of ctx carrying wr. The package-level Write,
// WriteError and HandlerFunc, and faultline's middlewares and rate limiter
// when given no writer of their own, write through the Writer a request's
// context carries, so a service configures its Writer once (middleware.Stack
// with WithWriter does this for every request below it).
func NewContext(ctx context.Context, wr *Writer) context.Context {
	return context.WithValue(ctx, writerKey{}, wr)
}

// FromContext returns the Writer ctx carries, or Default().
func FromContext(ctx context.Context) *Writer {
	if ctx != nil {
		if wr, ok := ctx.Value(writerKey{}).(*Writer); ok && wr != nil {
			return wr
		}
	}
	return Default()
}

// ContextKey is the key NewContext stores the Writer under, for context
// types that answer Value themselves (faultline's per-request middleware
// state) and so carry the Writer without another allocation.
func ContextKey() any { return writerKey{} }

func writerFor(r *http.Request) *Writer {
	if r == nil {
		return Default()
	}
	return FromContext(r.Context())
}
