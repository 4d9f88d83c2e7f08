package audit_test

import (
	"testing"

	"github.com/faultline-go/faultline/audit"
)

// TestPanicIsAuditedAsAFailure: a handler that panics below the audit
// middleware (the recover of the recommended stack sits above it) failed
// its request like any other 500, so its failure event is recorded.
func TestPanicIsAuditedAsAFailure(t *testing.T) {
	sink, path := openFileSink(t)
	a := newApp(t, sink, audit.Strict())
	resp, body := a.post(t, "crash")
	if resp.StatusCode != 500 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	events := readEvents(t, path)
	if len(events) != 2 || events[0].Kind != audit.KindAttempt || events[1].Kind != audit.KindFailure {
		t.Fatalf("want the attempt and the failure, got %+v", events)
	}
	if e := events[1]; e.Status != 500 || e.Code != "internal" || e.Principal != "alice" ||
		e.CorrelationID != resp.Header.Get("X-Request-Id") || e.Route != "/v1/orders/{id}" {
		t.Fatalf("failure event %+v", e)
	}
}
