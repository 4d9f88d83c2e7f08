package problem

import (
	"context"
	"net/http"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// NewContext returns a copy of ctx carrying wr. The package-level Write
// and From, and faultline's middlewares and rate limiter when given no
// writer of their own, write through the Writer a request's
// context carries, so a service configures its Writer once (middleware.Stack
// with WithWriter does this for every request below it).
func NewContext(ctx context.Context, wr *Writer) context.Context {
	return context.WithValue(ctx, problemhook.ContextKey{}, wr)
}

// FromContext returns the Writer ctx carries, or Default().
func FromContext(ctx context.Context) *Writer {
	if ctx != nil {
		if wr, ok := ctx.Value(problemhook.ContextKey{}).(*Writer); ok && wr != nil {
			return wr
		}
	}
	return Default()
}

func writerFor(r *http.Request) *Writer {
	if r == nil {
		return Default()
	}
	return FromContext(r.Context())
}
