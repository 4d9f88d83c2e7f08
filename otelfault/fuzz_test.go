package otelfault_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// FuzzObserveProblem hands the observer hand-built problems holding
// anything: every string on the span must be a member of the contract's
// closed sets (a declared code for error.type) or _OTHER, the exception
// message must be exactly the log tier's text, and nothing may panic.
func FuzzObserveProblem(f *testing.F) {
	f.Add("internal", "retry", "internal", "unknown", "0193b1c2-7a5e", "panic: password=hunter2", 500)
	f.Add("rate_limited", "retry", "request", "", "abcdefgh", "", 429)
	f.Add("Bad Code\r\n", "re\x00try", "<script>", "unknown\u202e", "id with spaces", "token Bearer abc.def.ghi", 503)
	f.Add("", "", "", "", "", "x", 0)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tel, err := otelfault.New(otelfault.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code, action, cause, outcome, id, errText string, status int) {
		// A peer's document carries any correlation ID and status; the
		// builders then set guidance members outside the closed sets.
		doc, _ := json.Marshal(map[string]any{"code": code, "correlation_id": id, "status": status})
		p, err := problem.Parse(doc)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithAction(problem.Action(action)).WithCause(problem.Cause(cause)).WithOutcome(problem.Outcome(outcome)).
			WithRetryable(true).WithRetryAfter(time.Duration(status) * time.Millisecond)
		if errText != "" {
			p = p.Wrap(errors.New(errText))
		}
		ctx, span := tp.Tracer("fuzz").Start(context.Background(), "req")
		tel.ObserveProblem(httptest.NewRequest("GET", "/", nil).WithContext(ctx), p)
		span.End()
		ended := rec.Ended()
		s := ended[len(ended)-1]
		rec.Reset()
		for _, kv := range s.Attributes() {
			v := kv.Value.String()
			if kv.Value.Type() == attribute.STRING && v != "_OTHER" && kv.Key != otelfault.AttrCorrelationID && !closed(kv.Key, v) {
				t.Errorf("%s = %q: neither a member of its closed set nor _OTHER", kv.Key, v)
			}
		}
		wantEvent := status >= 500 && errText != ""
		if got := len(s.Events()) == 1; got != wantEvent {
			t.Errorf("status %d, error %q: %d events", status, errText, len(s.Events()))
		}
		for _, e := range s.Events() {
			for _, kv := range e.Attributes {
				if kv.Key == "exception.message" && kv.Value.AsString() != sanitize.Log(errText) {
					t.Errorf("exception.message %q, want the log tier's %q", kv.Value.AsString(), sanitize.Log(errText))
				}
			}
		}
	})
}

// closed reports whether v belongs to the closed set of key.
func closed(key attribute.Key, v string) bool {
	switch key {
	case "error.type":
		_, ok := problem.DefaultRegistry().Lookup(problem.Kind(v))
		return ok
	case otelfault.AttrAction:
		return strings.Contains(" retry verify fix_request reauthenticate configure approve unlock none ", " "+v+" ")
	case otelfault.AttrCause:
		return strings.Contains(" request auth policy config internal upstream environment ", " "+v+" ")
	case otelfault.AttrOutcome:
		return strings.Contains(" not_started not_committed committed unknown ", " "+v+" ")
	}
	return false
}
