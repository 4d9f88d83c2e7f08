package otelfault_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
)

// A panic after the handler started its response cannot become a problem:
// the connection is aborted and the failure logged. The trace must still
// show it, with the panic through the log tier, never raw.
func TestPanicAfterTheResponseStartedReachesTheSpan(t *testing.T) {
	g := newRig(t, func(r chi.Router, g *rig) {
		r.Get("/stream", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"items":[1`))
			w.(http.Flusher).Flush()
			panic("lost connection to postgres://app:" + secret + "@10.0.0.5/orders")
		})
	})
	res, err := g.srv.Client().Get(g.srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	_, readErr := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || readErr == nil {
		t.Fatalf("status %d, read error %v: want the started response cut short", res.StatusCode, readErr)
	}
	s := g.span(t, 1)
	a := attrs(s)
	if got := a["error.type"].String(); got != "internal" {
		t.Errorf("error.type = %q, want internal", got)
	}
	var found bool
	for _, ev := range s.Events() {
		for _, kv := range ev.Attributes {
			if kv.Key == attribute.Key("exception.message") && strings.HasPrefix(kv.Value.String(), "panic: lost connection") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no exception event for the panic: %v", s.Events())
	}
	assertNoSecret(t, g)
}
