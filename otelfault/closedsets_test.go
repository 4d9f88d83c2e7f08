package otelfault_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
)

// A problem handed to the observer without a Writer's rules (built by hand,
// or by a caller's own observer chain) can hold values of the right shape
// that are not the contract's. Neither the span nor a metric series may
// carry them: they become _OTHER, and a declared code passes unchanged.
func TestValuesOutsideTheClosedSetsAreOther(t *testing.T) {
	custom := problem.Definition{Code: "order_locked", Status: 409, Title: "Order locked",
		Action: problem.ActionRetry, Cause: problem.CauseRequest, Retryable: true, ShowDetail: true}
	cases := []struct {
		name                         string
		p                            *problem.Problem
		code, action, cause, outcome string
		wantOutcome                  bool
	}{
		{"action shaped like one", occurrence("rate_limited", "retry_later", "request", ""),
			"rate_limited", "_OTHER", "request", "", false},
		{"cause and outcome shaped like ones", occurrence("upstream_error", "verify", "database", "half_done"),
			"upstream_error", "verify", "_OTHER", "_OTHER", true},
		{"an undeclared code", occurrence("user_42_not_found", "none", "vendor", "committed"),
			"_OTHER", "none", "_OTHER", "committed", true},
		{"a code only the request's writer declares", occurrence("order_locked", "wait", "policy", ""),
			"order_locked", "_OTHER", "policy", "", false},
	}
	var current *problem.Problem
	g := newRig(t, func(r chi.Router, g *rig) {
		r.Get("/observe", func(w http.ResponseWriter, r *http.Request) {
			g.tel.ObserveProblem(r, current)
			w.WriteHeader(http.StatusNoContent)
		})
	})
	reg := problem.NewRegistry()
	if err := reg.Register(custom); err != nil {
		t.Fatal(err)
	}
	scoped := problem.NewWriter(problem.WithRegistry(reg))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			current = c.p
			if c.code == "order_locked" {
				// The Writer serving the request, as Stack would hand it
				// down, declares the code; the default registry does not.
				g2 := newRig(t, func(r chi.Router, g2 *rig) {
					r.Get("/observe", func(w http.ResponseWriter, r *http.Request) {
						g2.tel.ObserveProblem(r.WithContext(problemhook.NewContext(r.Context(), scoped)), current)
						w.WriteHeader(http.StatusNoContent)
					})
				})
				checkClosed(t, g2, 1, c.code, c.action, c.cause, c.outcome, c.wantOutcome)
				return
			}
			checkClosed(t, g, i+1, c.code, c.action, c.cause, c.outcome, c.wantOutcome)
		})
	}
}

func checkClosed(t *testing.T, g *rig, n int, code, action, cause, outcome string, wantOutcome bool) {
	t.Helper()
	if got := g.do(t, "GET", "/observe", ""); got.status != http.StatusNoContent {
		t.Fatalf("status %d", got.status)
	}
	a := attrs(g.span(t, n))
	if v := a["error.type"].String(); v != code {
		t.Errorf("error.type %q, want %q", v, code)
	}
	if v := a[otelfault.AttrAction].String(); v != action {
		t.Errorf("faultline.action %q, want %q", v, action)
	}
	if v := a[otelfault.AttrCause].String(); v != cause {
		t.Errorf("faultline.cause %q, want %q", v, cause)
	}
	if v, ok := a[otelfault.AttrOutcome]; ok != wantOutcome || ok && v.String() != outcome {
		t.Errorf("faultline.outcome %q (present %v), want %q", v.String(), ok, outcome)
	}
	found := false
	for _, dp := range sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems]) {
		c := str(dp.Attributes, otelfault.AttrCause)
		if c != "_OTHER" && c != "request" && c != "policy" && c != "auth" && c != "config" && c != "internal" && c != "upstream" && c != "environment" {
			t.Errorf("metric series with faultline.cause %q", c)
		}
		if e := str(dp.Attributes, "error.type"); e == code && c == cause {
			found = true
		}
		for _, e := range []string{"user_42_not_found"} {
			if str(dp.Attributes, "error.type") == e {
				t.Errorf("metric series with the undeclared code %q", e)
			}
		}
	}
	if !found {
		t.Errorf("no faultline.problems series with error.type %q and cause %q", code, cause)
	}
}

// The retry-after histogram carries the same attributes as the counter,
// so an undeclared code cannot reach it either.
func TestRetryAfterHistogramKeepsTheClosedSets(t *testing.T) {
	g := newRig(t, func(r chi.Router, g *rig) {
		r.Get("/observe", func(w http.ResponseWriter, r *http.Request) {
			g.tel.ObserveProblem(r, occurrence("quota_exceeded_tenant_7", "backoff", "tenant", "").WithRetryAfter(3*time.Second))
			w.WriteHeader(http.StatusNoContent)
		})
	})
	g.do(t, "GET", "/observe", "")
	g.span(t, 1)
	h := g.faultlineMetrics(t)[otelfault.MetricRetryAfter]
	if h == nil {
		t.Fatal("no retry-after histogram")
	}
	for _, dp := range h.(metricdata.Histogram[int64]).DataPoints {
		if e := str(dp.Attributes, "error.type"); e != "_OTHER" {
			t.Errorf("histogram error.type %q, want _OTHER", e)
		}
	}
}

// occurrence is a problem of any code, with guidance members that may lie
// outside the closed sets, as a peer's document or a builder given
// unchecked values hands the telemetry.
func occurrence(code, action, cause, outcome string) *problem.Problem {
	return problem.New(problem.Kind(code)).
		WithAction(problem.Action(action)).WithCause(problem.Cause(cause)).WithOutcome(problem.Outcome(outcome))
}
