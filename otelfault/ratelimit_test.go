package otelfault_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/ratelimit"
)

func ok(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }

// limitedRoute mounts GET /limited behind a limiter of limit requests per
// minute whose decisions go to the rig's Telemetry.
func limitedRoute(limit int, opts ...ratelimit.Option) func(chi.Router, *rig) {
	return func(r chi.Router, g *rig) {
		l, err := ratelimit.New([]ratelimit.Policy{{Name: "per-minute", Limit: limit, Window: time.Minute, Key: httprate.Key("everyone")}},
			append(opts, ratelimit.WithObserver(g.tel.RateLimitObserver()))...)
		if err != nil {
			panic(err)
		}
		r.With(l.Handler).Get("/limited", ok)
	}
}

func decisions(t *testing.T, g *rig) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, p := range sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricRateLimit]) {
		out[str(p.Attributes, otelfault.AttrPolicy)+" "+str(p.Attributes, otelfault.AttrDecision)+" fallback="+str(p.Attributes, otelfault.AttrFallback)] += p.Value
	}
	return out
}

func TestRateLimitRefusal(t *testing.T) {
	g := newRig(t, limitedRoute(1))
	if res := g.do(t, "GET", "/limited", ""); res.status != 204 {
		t.Fatalf("first: %d", res.status)
	}
	res := g.do(t, "GET", "/limited", "")
	if res.status != 429 || res.body["code"] != "rate_limited" {
		t.Fatalf("second: %d %v", res.status, res.body)
	}
	bodyMS := int64(res.body["retry_after_ms"].(float64))
	// A sliding window: the previous window's count still weighs, so the
	// wait can exceed one window.
	if bodyMS <= 0 || bodyMS > 120000 {
		t.Fatalf("retry_after_ms %d", bodyMS)
	}

	first, s := g.span(t, 1), g.span(t, 2)
	for _, kv := range first.Attributes() {
		if kv.Key == "error.type" || kv.Key == otelfault.AttrAction {
			t.Errorf("allowed request's span has %s", kv.Key)
		}
	}
	if s.Status().Code != codes.Unset {
		t.Errorf("429 span status %v, want Unset", s.Status())
	}
	a := attrs(s)
	for k, v := range map[attribute.Key]string{
		"error.type":            "rate_limited",
		otelfault.AttrAction:    "retry",
		otelfault.AttrCause:     "request",
		otelfault.AttrRetryable: "true",
	} {
		if got := a[k].String(); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if got := a[otelfault.AttrRetryAfterMS].AsInt64(); got != bodyMS {
		t.Errorf("span retry_after_ms %d, body %d", got, bodyMS)
	}

	m := g.faultlineMetrics(t)
	h := m[otelfault.MetricRetryAfter].(metricdata.Histogram[int64]).DataPoints
	if len(h) != 1 || h[0].Count != 1 || h[0].Sum != bodyMS || str(h[0].Attributes, "http.route") != "/limited" {
		t.Errorf("retry-after histogram %+v, want one value of %d under /limited", h, bodyMS)
	}
	want := map[string]int64{"per-minute allowed fallback=false": 1, "per-minute limited fallback=false": 1}
	if got := decisions(t, g); !equal(got, want) {
		t.Errorf("decisions %v, want %v", got, want)
	}
}

// TestRedisOutage kills a real redis-server under a fail-open limiter: the
// request that finds it gone is counted in process (fallback), the
// transition is counted once each way.
func TestRedisOutage(t *testing.T) {
	rs := redistest.Start(t)
	client := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{rs.Addr()}, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = client.Close() })
	g := newRig(t, limitedRoute(100, ratelimit.WithRedis(client), ratelimit.WithRedisTimeout(200*time.Millisecond),
		ratelimit.WithPrefix("otelfault-test:")))

	if res := g.do(t, "GET", "/limited", ""); res.status != 204 {
		t.Fatalf("with Redis: %d", res.status)
	}
	rs.Kill()
	if res := g.do(t, "GET", "/limited", ""); res.status != 204 {
		t.Fatalf("Redis down, fail-open: %d", res.status)
	}
	rs.Restart()
	// The first probe after the restart may still meet a dead pooled
	// connection; each request past the probe interval tries again.
	requests := 2
	for deadline := time.Now().Add(10 * time.Second); ; {
		time.Sleep(1050 * time.Millisecond) // past the limiter's probe interval, a second
		if res := g.do(t, "GET", "/limited", ""); res.status != 204 {
			t.Fatalf("after the restart: %d", res.status)
		}
		requests++
		if transitions(t, g)["up"] == 1 || time.Now().After(deadline) {
			break
		}
	}

	if got := transitions(t, g); !equal(got, map[string]int64{"down": 1, "up": 1}) {
		t.Errorf("transitions %v, want one down and one up", got)
	}
	d := decisions(t, g)
	if d["per-minute allowed fallback=false"] < 2 || d["per-minute allowed fallback=true"] < 1 ||
		d["per-minute allowed fallback=false"]+d["per-minute allowed fallback=true"] != int64(requests) || len(d) != 2 {
		t.Errorf("decisions %v for %d requests: want each counted once, in process while Redis was down", d, requests)
	}
}

func transitions(t *testing.T, g *rig) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, p := range sumPoints(t, g.faultlineMetrics(t)[otelfault.MetricRedisTransitions]) {
		out[str(p.Attributes, otelfault.AttrRedisState)] += p.Value
	}
	return out
}

func equal(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
