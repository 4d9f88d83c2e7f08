package main

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMetricsReachPrometheus(t *testing.T) {
	h, shutdown, err := newServer(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer shutdown()
	srv := httptest.NewServer(h)
	defer srv.Close()

	get := func(path string) (int, string) {
		t.Helper()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for i, want := range []int{200, 200, 200, 429, 429} {
		if got, _ := get("/orders/7"); got != want {
			t.Fatalf("request %d: %d, want %d", i+1, got, want)
		}
	}
	if got, _ := get("/nowhere/at/all"); got != 404 {
		t.Fatalf("404 route: %d", got)
	}
	_, metrics := get("/metrics")
	for _, want := range []string{
		`faultline_problems_total{error_type="rate_limited",faultline_cause="request",http_response_status_code="429",http_route="/orders/{id}",`,
		`faultline_problems_total{error_type="not_found",faultline_cause="request",http_response_status_code="404",http_route="unmatched",`,
		`faultline_ratelimit_decisions_total{faultline_ratelimit_decision="allowed",faultline_ratelimit_fallback="false",faultline_ratelimit_policy="3-per-1m0s",`,
		`faultline_ratelimit_decisions_total{faultline_ratelimit_decision="limited",faultline_ratelimit_fallback="false",faultline_ratelimit_policy="3-per-1m0s",`,
		`faultline_problem_retry_after_milliseconds_count{error_type="rate_limited",http_route="/orders/{id}",`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s\n%s", want, grep(metrics, "faultline_"))
		}
	}
	if strings.Contains(metrics, "/nowhere") {
		t.Errorf("a raw path reached a label:\n%s", grep(metrics, "/nowhere"))
	}
}

func grep(text, substr string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
