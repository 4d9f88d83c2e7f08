package otelfault

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// recordOnSpan puts the problem on the span ctx carries, with code as
// codeValue admitted it. Every value is either from a closed set, a number, a validated correlation ID, or text
// that passed the sanitize log tier: a span is exported like a log record,
// so it gets no more than the log would.
func recordOnSpan(ctx context.Context, p *problem.Problem, code string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := attrArrays.Get().(*[7]attribute.KeyValue)
	defer attrArrays.Put(attrs)
	attrs[0] = semconv.ErrorTypeKey.String(code)
	attrs[1] = AttrAction.String(inSet(actions, p.Action()))
	attrs[2] = AttrCause.String(inSet(causes, p.Cause()))
	attrs[3] = AttrRetryable.Bool(p.Retryable())
	n := 4
	if ms := p.RetryAfter().Milliseconds(); ms > 0 {
		attrs[n] = AttrRetryAfterMS.Int64(ms)
		n++
	}
	if p.Outcome() != "" {
		attrs[n] = AttrOutcome.String(inSet(outcomes, p.Outcome()))
		n++
	}
	if id := p.CorrelationID(); id != "" && correlation.Valid(id) {
		attrs[n] = AttrCorrelationID.String(id)
		n++
	}
	span.SetAttributes(attrs[:n]...)
	if p.Status() < 500 {
		// HTTP semantic conventions: a 4xx leaves a server span's status
		// unset, since the server did what it should. error.type still
		// says which problem it was.
		return
	}
	// No description: the conventions ask for none when the status code
	// explains the error, and error.type names the problem.
	span.SetStatus(codes.Error, "")
	if err := p.Unwrap(); err != nil {
		// The error behind a 5xx (a recovered panic, a failed dependency)
		// is what an exception event is for. Its text goes through the log
		// tier, like the problem's log record, so credentials stay out.
		span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(
			semconv.ExceptionType(errorType(err)),
			semconv.ExceptionMessage(sanitize.Log(err.Error())),
		))
	}
}

// attrArrays hold the attributes on their way to SetAttributes: a local
// array would escape through the interface call, one allocation per
// problem. Implementations copy what they are given, as the SDK does.
var attrArrays = sync.Pool{New: func() any { return new([7]attribute.KeyValue) }}

// errorType names the error's type the way semantic conventions' ErrorType
// does (an ErrorType method wins, fmt wrappers are looked through).
func errorType(err error) string {
	return semconv.ErrorType(err).Value.AsString()
}
