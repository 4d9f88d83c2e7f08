package audit_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/audit"
)

// The strict-mode attempt is written before chi routes the request; it
// still names the route pattern, never the identifiers in the path, and a
// path no route matches reaches the audit store only through the log tier.
func TestEventsNameTheRouteNeverTheRawPath(t *testing.T) {
	sink, path := openFileSink(t)
	a := newApp(t, sink, audit.Strict())
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	if resp, _ := a.post(t, "denied"); resp.StatusCode != 403 {
		t.Fatalf("denied: %d", resp.StatusCode)
	}
	resp, err := http.Post(a.srv.URL+"/reset/"+token, "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unrouted: %d", resp.StatusCode)
	}
	events := readEvents(t, path)
	if len(events) != 4 {
		t.Fatalf("want attempt and failure for both requests, got %+v", events)
	}
	for _, e := range events[:2] {
		if e.Route != "/v1/orders/{id}" {
			t.Errorf("%s event names %q, want the pattern", e.Kind, e.Route)
		}
	}
	for _, e := range events[2:] {
		if strings.Contains(e.Route, token[4:]) || !strings.HasPrefix(e.Route, "/reset/") {
			t.Errorf("%s event names %q", e.Kind, e.Route)
		}
	}
}
