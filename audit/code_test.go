package audit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/audit"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// The writer is configured once, its code header included
// (problem.WithCodeHeader): an event names the problem's code under
// whatever header the request's writer sends it, not only X-Error-Code.
func TestEventsCarryTheCodeUnderTheWritersHeader(t *testing.T) {
	for _, header := range []string{"", "X-Problem-Code", "error-code"} {
		opts := []problem.Option{}
		if header != "" {
			opts = append(opts, problem.WithCodeHeader(header))
		}
		sink, path := openFileSink(t)
		r := chi.NewRouter()
		r.Use(middleware.Stack(middleware.WithWriter(problem.NewWriter(opts...))))
		r.Use(audit.Middleware(sink))
		r.Post("/v1/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
			code := map[string]problem.Kind{"a": problem.PolicyDenied, "b": problem.Conflict}[chi.URLParam(r, "id")]
			problem.Write(w, r, problem.New(code))
		})
		srv := httptest.NewServer(r)
		for _, id := range []string{"a", "b"} {
			resp, err := http.Post(srv.URL+"/v1/orders/"+id, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		srv.Close()
		events := readEvents(t, path)
		if len(events) != 2 || events[0].Code != "policy_denied" || events[1].Code != "conflict" {
			t.Errorf("code header %q: events %+v", header, events)
		}
	}
}
