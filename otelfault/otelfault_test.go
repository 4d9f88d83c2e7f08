package otelfault_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
)

const secret = "hunter2"

type order struct {
	SKU      string `json:"sku" validate:"required"`
	Quantity int    `json:"quantity" validate:"gte=1"`
}

// routes mounts one route per outcome the tests look at.
func routes(r chi.Router, g *rig) {
	r.Get("/ok", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("fine")) })
	r.Get("/panic/{id}", func(w http.ResponseWriter, r *http.Request) {
		panic("lost connection to postgres://app:" + secret + "@10.0.0.5/orders")
	})
	r.Post("/orders", func(w http.ResponseWriter, r *http.Request) {
		if _, err := bind.Decode[order](r); err != nil {
			_ = g.writer.Write(w, r, g.writer.FromError(err))
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	r.Get("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
}

func TestPanicIsAnErrorSpanWithASanitizedException(t *testing.T) {
	g := newRig(t, routes)
	res := g.do(t, "GET", "/panic/7", "", "X-Request-Id", "req-panic-1")
	if res.status != 500 || res.body["code"] != "internal" {
		t.Fatalf("got %d %v", res.status, res.body)
	}
	s := g.span(t, 1)
	if s.Status().Code != codes.Error {
		t.Errorf("span status %v, want Error", s.Status())
	}
	a := attrs(s)
	want := map[attribute.Key]string{
		"error.type":                "internal",
		otelfault.AttrAction:        "retry",
		otelfault.AttrCause:         "internal",
		otelfault.AttrRetryable:     "true",
		otelfault.AttrOutcome:       "not_committed",
		otelfault.AttrCorrelationID: "req-panic-1",
		"http.response.status_code": "500",
	}
	for k, v := range want {
		if got := a[k].String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if _, ok := a[otelfault.AttrRetryAfterMS]; ok {
		t.Errorf("retry_after_ms on a problem without one")
	}
	ev := s.Events()
	if len(ev) != 1 || ev[0].Name != "exception" {
		t.Fatalf("events %v, want one exception", ev)
	}
	e := map[attribute.Key]string{}
	for _, kv := range ev[0].Attributes {
		e[kv.Key] = kv.Value.String()
	}
	msg := e["exception.message"]
	if !strings.HasPrefix(msg, "panic: lost connection to postgres://") || strings.Contains(msg, secret) {
		t.Errorf("exception.message %q: want the panic through the log tier, without the password", msg)
	}
	// middleware.Recover's error names itself through ErrorType.
	if e["exception.type"] != "panic" {
		t.Errorf("exception.type %q does not say it was a panic", e["exception.type"])
	}
	assertNoSecret(t, g)

	m := g.faultlineMetrics(t)
	pts := sumPoints(t, m[otelfault.MetricProblems])
	if len(pts) != 1 || pts[0].Value != 1 {
		t.Fatalf("problem points %+v, want one of 1", pts)
	}
	at := pts[0].Attributes
	for k, v := range map[attribute.Key]string{"error.type": "internal", "http.response.status_code": "500", otelfault.AttrCause: "internal", "http.route": "/panic/{id}"} {
		if got := str(at, k); got != v {
			t.Errorf("metric %s = %q, want %q", k, got, v)
		}
	}
	if at.Len() != 4 {
		t.Errorf("metric attributes %v, want exactly code, status, cause, route", at.Encoded(attribute.DefaultEncoder()))
	}
	if h := m[otelfault.MetricRetryAfter]; h != nil && len(h.(metricdata.Histogram[int64]).DataPoints) != 0 {
		t.Errorf("retry-after recorded for a problem without a retry time: %+v", h)
	}
}

func TestValidationFailureLeavesStatusUnset(t *testing.T) {
	g := newRig(t, routes)
	res := g.do(t, "POST", "/orders", `{"sku":"","quantity":0}`, "Content-Type", "application/json")
	if res.status != 422 || res.body["code"] != "validation_failed" {
		t.Fatalf("got %d %v", res.status, res.body)
	}
	s := g.span(t, 1)
	if s.Status().Code != codes.Unset {
		t.Errorf("span status %v: a 4xx leaves a server span unset", s.Status())
	}
	a := attrs(s)
	for k, v := range map[attribute.Key]string{
		"error.type":            "validation_failed",
		otelfault.AttrAction:    "fix_request",
		otelfault.AttrCause:     "request",
		otelfault.AttrRetryable: "false",
	} {
		if got := a[k].String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if id := res.header.Get("X-Request-Id"); id == "" || a[otelfault.AttrCorrelationID].String() != id {
		t.Errorf("correlation id on span %q, response %q", a[otelfault.AttrCorrelationID].String(), id)
	}
	if _, ok := a[otelfault.AttrOutcome]; ok {
		t.Errorf("outcome on a problem without one")
	}
	if len(s.Events()) != 0 {
		t.Errorf("events %v on a client error", s.Events())
	}
	pts := sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems])
	if len(pts) != 1 || str(pts[0].Attributes, "error.type") != "validation_failed" ||
		str(pts[0].Attributes, "http.route") != "/orders" || str(pts[0].Attributes, "http.response.status_code") != "422" {
		t.Errorf("points %+v", pts)
	}
}

func TestTimeoutIsAnErrorSpanWithoutException(t *testing.T) {
	g := newRig(t, routes, middleware.WithRequestTimeout(30*time.Millisecond))
	res := g.do(t, "GET", "/slow", "")
	if res.status != 503 || res.body["code"] != "timeout" {
		t.Fatalf("got %d %v", res.status, res.body)
	}
	s := g.span(t, 1)
	if s.Status().Code != codes.Error {
		t.Errorf("span status %v, want Error", s.Status())
	}
	a := attrs(s)
	for k, v := range map[attribute.Key]string{
		"error.type":          "timeout",
		otelfault.AttrCause:   "internal",
		otelfault.AttrOutcome: "not_committed",
	} {
		if got := a[k].String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if len(s.Events()) != 0 {
		t.Errorf("events %v: a timeout wraps no error", s.Events())
	}
	pts := sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems])
	if len(pts) != 1 || str(pts[0].Attributes, "error.type") != "timeout" || str(pts[0].Attributes, "http.route") != "/slow" {
		t.Errorf("points %+v", pts)
	}
}

func TestNotFoundIsCountedUnderUnmatchedNotItsPath(t *testing.T) {
	g := newRig(t, routes)
	for _, p := range []string{"/nope/1", "/nope/2", "/a%20b"} {
		if res := g.do(t, "GET", p, ""); res.status != 404 {
			t.Fatalf("%s: %d", p, res.status)
		}
	}
	pts := sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricProblems])
	if len(pts) != 1 || pts[0].Value != 3 || str(pts[0].Attributes, "http.route") != otelfault.RouteUnmatched {
		t.Errorf("points %+v: want one series of 3 under %q", pts, otelfault.RouteUnmatched)
	}
}

func TestSuccessRecordsNothingExtra(t *testing.T) {
	g := newRig(t, routes)
	if res := g.do(t, "GET", "/ok", ""); res.status != 200 {
		t.Fatalf("status %d", res.status)
	}
	s := g.span(t, 1)
	if s.Status().Code != codes.Unset || len(s.Events()) != 0 {
		t.Errorf("status %v events %v", s.Status(), s.Events())
	}
	for _, kv := range s.Attributes() {
		if kv.Key == "error.type" || strings.HasPrefix(string(kv.Key), "faultline.") {
			t.Errorf("success span has %s=%s", kv.Key, kv.Value.String())
		}
	}
	for name, data := range g.faultlineMetrics(t) {
		if pts := sumPoints(t, data); len(pts) != 0 {
			t.Errorf("%s has points after a success: %+v", name, pts)
		}
	}
}

// assertNoSecret checks every attribute and event of every span.
func assertNoSecret(t *testing.T, g *rig) {
	t.Helper()
	for _, s := range g.spans.Ended() {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.String(), secret) {
				t.Errorf("span attribute %s leaks the secret", kv.Key)
			}
		}
		for _, e := range s.Events() {
			for _, kv := range e.Attributes {
				if strings.Contains(kv.Value.String(), secret) {
					t.Errorf("event %s attribute %s leaks the secret", e.Name, kv.Key)
				}
			}
		}
	}
}

var _ = problem.New
