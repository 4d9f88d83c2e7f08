package middleware

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/problem"
)

const testLimit = 64

// upload reads the whole body the way handlers do and reports its size.
func upload(wr *problem.Writer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			wr.Write(w, r, wr.FromError(err))
			return
		}
		fmt.Fprintf(w, "got %d bytes", len(b))
	}
}

// chunked is a raw request whose body is sent in one chunk of n bytes.
func chunked(path string, n int) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n",
		path, n, strings.Repeat("a", n))
}

func TestBodyLimitDeclaredLengthRefusedWithoutReading(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		var called atomic.Bool
		h := rt.build(Stack(WithWriter(k.writer), WithBodyLimit(testLimit)), map[string]http.HandlerFunc{
			"POST /upload": func(w http.ResponseWriter, r *http.Request) { called.Store(true) },
		})
		srv := k.serve(t, h)
		// Only the headers are sent: a server that waited for the body would
		// never answer.
		r, conn, br := rawRequest(t, srv, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000000\r\n\r\n")
		m := wantProblem(t, r, 413, "request_too_large", map[string]any{"action": "fix_request", "cause": "request"})
		if m["detail"] != problemhook.TooLargeDetail(testLimit) {
			t.Fatalf("detail %v", m["detail"])
		}
		if called.Load() {
			t.Fatal("handler ran")
		}
		if !connClosed(t, conn, br) {
			t.Fatal("connection kept open with an unread body")
		}
	})
}

// Under a deadline Stack sets its correlation header on the handler's own
// header map (see TestTimeoutProblemCarriesTheCorrelationHeader); a body
// refused for its declared length, before the handler runs, still carries
// it, once, under the name correlation echoes it in.
func TestBodyLimitRefusalUnderADeadlineCarriesTheCorrelationHeader(t *testing.T) {
	for _, name := range []string{"X-Request-Id", "Trace-Ref"} {
		k := newKit()
		h := Stack(WithWriter(k.writer), WithBodyLimit(testLimit), WithRequestTimeout(time.Minute),
			WithCorrelation(correlation.WithResponseHeader(name)))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			t.Error("handler ran")
		}))
		req, _ := http.NewRequest(http.MethodPost, k.serve(t, h).URL+"/upload", strings.NewReader(strings.Repeat("b", 3*testLimit)))
		r := do(t, req)
		m := wantProblem(t, r, 413, "request_too_large", nil)
		if got := r.Header.Values(name); len(got) != 1 || got[0] != m["correlation_id"] {
			t.Errorf("%s %q, correlation_id %v", name, got, m["correlation_id"])
		}
	}
}

func TestBodyLimitChunkedOneByteOver(t *testing.T) {
	for _, handler := range []struct {
		name string
		fn   func(k *kit) http.HandlerFunc
	}{
		{"Write", func(k *kit) http.HandlerFunc { return upload(k.writer) }},
		// A handler that ignores the error's type and sends a bare 500.
		{"bare500", func(*kit) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if _, err := io.ReadAll(r.Body); err != nil {
					http.Error(w, err.Error(), 500)
				}
			}
		}},
		// A handler that gives up on a failed read without answering: the
		// client must not get a 200 with an empty body.
		{"silent", func(*kit) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				if _, err := io.ReadAll(r.Body); err != nil {
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}
		}},
	} {
		t.Run(handler.name, func(t *testing.T) {
			forEachRouter(t, func(t *testing.T, rt router) {
				k := newKit()
				h := rt.build(Stack(WithWriter(k.writer), WithBodyLimit(testLimit)), map[string]http.HandlerFunc{
					"POST /upload": handler.fn(k),
				})
				srv := k.serve(t, h)
				r, conn, br := rawRequest(t, srv, chunked("/upload", testLimit+1))
				m := wantProblem(t, r, 413, "request_too_large", map[string]any{"action": "fix_request"})
				if m["detail"] != problemhook.TooLargeDetail(testLimit) || contains(r.body, "http:") {
					t.Fatalf("body %s", r.body)
				}
				if !r.Close || !connClosed(t, conn, br) {
					t.Fatal("connection not closed after an oversized body")
				}
			})
		})
	}
}

func TestBodyLimitExactlyAtLimit(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer), WithBodyLimit(testLimit)), map[string]http.HandlerFunc{
			"POST /upload": upload(k.writer),
		})
		srv := k.serve(t, h)
		r, _, _ := rawRequest(t, srv, chunked("/upload", testLimit))
		if r.StatusCode != 200 || string(r.body) != fmt.Sprintf("got %d bytes", testLimit) {
			t.Fatalf("%d %q", r.StatusCode, r.body)
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/upload", strings.NewReader(strings.Repeat("b", testLimit)))
		if r := do(t, req); r.StatusCode != 200 {
			t.Fatalf("declared length at the limit: %d %q", r.StatusCode, r.body)
		}
	})
}

func TestBodyLimitNestedOnRouteGroupTightens(t *testing.T) {
	k := newKit()
	r := chi.NewRouter()
	r.Use(Stack(WithWriter(k.writer), WithBodyLimit(1024)))
	r.Post("/big", upload(k.writer))
	r.With(BodyLimit(testLimit)).Post("/small", upload(k.writer))
	srv := k.serve(t, r)
	body := strings.Repeat("c", 100)
	for path, want := range map[string]int{"/big": 200, "/small": 413} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		if got := do(t, req); got.StatusCode != want {
			t.Errorf("%s declared: %d, want %d", path, got.StatusCode, want)
		}
		got, _, _ := rawRequest(t, srv, chunked(path, 100))
		if got.StatusCode != want {
			t.Errorf("%s chunked: %d, want %d (%s)", path, got.StatusCode, want, got.body)
		}
	}
}
