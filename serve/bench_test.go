package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/faultline-go/faultline/correlation"
)

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkTracking measures what Run adds to every successful request:
// the tracking wrapper, and correlation accepted in front of it, against
// the bare handler and correlation alone in the same run.
func BenchmarkTracking(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	wr, _ := newWriter()
	_, tracked := newTracker(handler, &runConfig{writer: wr})
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", handler},
		{"correlation_only", correlation.Middleware()(handler)},
		{"tracked", tracked},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/v1/orders/1", nil)
			w := &discardWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				bc.h.ServeHTTP(w, r)
			}
		})
	}
}
