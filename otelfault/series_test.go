package otelfault_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/faultline-go/faultline/otelfault"
	"github.com/faultline-go/faultline/problem"
)

// A service that declares more codes than the counter holds series for
// must not grow it without bound: past the cap, counts go to one overflow
// series, and none is lost. (An undeclared code never makes a series of
// its own: it is _OTHER.)
func TestSeriesOverflow(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithCardinalityLimit(0))
	const n = 2100
	reg := problem.NewRegistry()
	for i := range n {
		if err := reg.Register(problem.Definition{Code: problem.Kind(fmt.Sprintf("declared_%d", i)), Status: 400, Title: "Declared",
			Action: problem.ActionFixRequest, Cause: problem.CauseRequest, ShowDetail: true}); err != nil {
			t.Fatal(err)
		}
	}
	tel, err := otelfault.New(otelfault.WithMeterProvider(mp), otelfault.WithRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	for i := range n {
		tel.ObserveProblem(r, occurrence(fmt.Sprintf("declared_%d", i), "", string(problem.CauseRequest), ""))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var series, total, overflow int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != otelfault.MetricProblems {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				series++
				total += p.Value
				if v, ok := p.Attributes.Value("otel.metric.overflow"); ok && v.AsBool() {
					overflow = p.Value
				}
			}
		}
	}
	if total != n || series != 2049 || overflow != n-2048 {
		t.Errorf("%d series holding %d, overflow %d; want 2049 holding %d, overflow %d", series, total, overflow, n, n-2048)
	}
}
