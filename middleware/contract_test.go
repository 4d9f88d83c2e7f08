package middleware

import (
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every problem a middleware writes keeps the retry signals consistent:
// action retry only with retryable true, a write of unknown outcome that
// cannot be replayed says verify, and Retry-After appears exactly when
// retry_after_ms does, with the same value rounded up to seconds.
func TestMiddlewarePathsNeverContradictRetrySignals(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		routes := map[string]http.HandlerFunc{}
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			routes[m+" /panic"] = func(http.ResponseWriter, *http.Request) { panic("boom") }
			routes[m+" /bare500"] = func(w http.ResponseWriter, r *http.Request) { http.Error(w, "db down", 500) }
			routes[m+" /bare503"] = func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "30")
				http.Error(w, "maintenance", http.StatusServiceUnavailable)
			}
			routes[m+" /slow"] = func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
			routes[m+" /upload"] = func(w http.ResponseWriter, r *http.Request) {}
		}
		srv := k.serve(t, rt.build(Stack(WithWriter(k.writer), WithBodyLimit(8), WithRequestTimeout(testTimeout)), routes))
		for _, path := range []string{"/panic", "/bare500", "/bare503", "/slow", "/upload", "/nowhere"} {
			for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
				for _, key := range []string{"", "k-123456789"} {
					var body io.Reader
					if path == "/upload" {
						body = strings.NewReader(strings.Repeat("x", 16))
					}
					req, _ := http.NewRequest(m, srv.URL+path, body)
					if key != "" {
						req.Header.Set("Idempotency-Key", key)
					}
					r := do(t, req)
					p := members(t, r)
					name := m + " " + path + " key=" + key
					retryable, _ := p["retryable"].(bool)
					if p["action"] == "retry" && !retryable {
						t.Errorf("%s: action retry with retryable false: %s", name, r.body)
					}
					if p["outcome"] == "unknown" && key == "" && (retryable || p["action"] != "verify") {
						t.Errorf("%s: unknown outcome without a key: %s", name, r.body)
					}
					ms, hasMS := p["retry_after_ms"].(float64)
					ra := r.Header.Get("Retry-After")
					if hasMS != (ra != "") || hasMS && !retryable {
						t.Errorf("%s: Retry-After %q, retry_after_ms %v, retryable %v", name, ra, p["retry_after_ms"], retryable)
					}
					if hasMS {
						secs, err := strconv.Atoi(ra)
						if want := int(math.Ceil(ms / float64(time.Second/time.Millisecond))); err != nil || secs != want {
							t.Errorf("%s: Retry-After %q, retry_after_ms %v", name, ra, ms)
						}
					}
				}
			}
		}
	})
}
