package otelfault

import (
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/faultline-go/faultline/correlation"
)

// RecordCorrelationID records the request's correlation ID on the active
// span as faultline.correlation_id, on every request, so that the ID a
// client reports (from X-Request-Id or a problem's correlation_id) finds
// its trace with one search, whatever the outcome. Mount it below the
// layer that assigns the ID (middleware.Stack or correlation.Middleware)
// and below the tracing middleware (otelhttp).
//
// The correlation ID itself is unchanged: it is still taken from the
// client's X-Request-Id or generated, never derived from the trace ID. That
// way it keeps its meaning across hops that are not traced, and a client
// that sends its own ID still finds it on the span. Without this
// middleware, the ID is recorded on spans where a problem is written only.
func RecordCorrelationID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if span := trace.SpanFromContext(ctx); span.IsRecording() {
			if id := correlation.ID(ctx); id != "" {
				span.SetAttributes(AttrCorrelationID.String(id))
			}
		}
		next.ServeHTTP(w, r)
	})
}
