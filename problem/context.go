package problem

import (
	"context"
	"net/http"

	"github.com/faultline-go/faultline/internal/problemhook"
)

// FromContext returns the Writer ctx carries, or Default(). The package-level
// Write and From, and faultline's middlewares and rate limiter when given
// no writer of their own, write through the Writer a request's context
// carries, so a service configures its Writer once: middleware.Stack with
// WithWriter puts it in the context of every request below it.
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
