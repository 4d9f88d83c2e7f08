package middleware_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
)

// show sends one request and prints what a client branches on.
func show(h http.Handler, method, path string) {
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("X-Request-Id", "req-7f3a9c21")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m struct {
		Code      string `json:"code"`
		Action    string `json:"action"`
		Retryable bool   `json:"retryable"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		fmt.Printf("%s %s: %d %q\n", method, path, rec.Code, rec.Body.String())
		return
	}
	fmt.Printf("%s %s: %d %s code=%s action=%s retryable=%t id=%s", method, path, rec.Code,
		rec.Header().Get("Content-Type"), m.Code, m.Action, m.Retryable, rec.Header().Get("X-Request-Id"))
	if allow := rec.Header().Get("Allow"); allow != "" {
		fmt.Printf(" allow=%q", allow)
	}
	fmt.Println()
}

// The recommended wiring on chi: Stack first, and faultline's NotFound and
// MethodNotAllowed, so every failure, the router's own included, is a
// problem; HEAD is served by the GET route.
func ExampleStack() {
	r := chi.NewRouter()
	r.Use(middleware.Stack(
		middleware.WithWriter(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))),
		middleware.WithBodyLimit(1<<20),
		middleware.WithRequestTimeout(5*time.Second),
	))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.Get("/v1/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		if chi.URLParam(r, "id") == "boom" {
			panic("nil map") // the client sees internal; the panic goes to the log
		}
		http.Error(w, "no such order", http.StatusNotFound) // a bare error becomes a problem
	})

	show(r, http.MethodGet, "/v1/orders/7")
	show(r, http.MethodGet, "/v1/orders/boom")
	show(r, http.MethodDelete, "/v1/orders/7")
	show(r, http.MethodGet, "/nowhere")
	// Output:
	// GET /v1/orders/7: 404 application/problem+json code=not_found action=fix_request retryable=false id=req-7f3a9c21
	// GET /v1/orders/boom: 500 application/problem+json code=internal action=retry retryable=true id=req-7f3a9c21
	// DELETE /v1/orders/7: 405 application/problem+json code=method_not_allowed action=fix_request retryable=false id=req-7f3a9c21 allow="GET, HEAD"
	// GET /nowhere: 404 application/problem+json code=not_found action=fix_request retryable=false id=req-7f3a9c21
}

// The same on http.ServeMux: Stack wraps the mux, whose own text 404 and
// 405 become problems (the mux computes Allow itself).
func ExampleStack_serveMux() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q}`, r.PathValue("id"))
	})
	h := middleware.Stack(middleware.WithWriter(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))), middleware.WithRequestTimeout(5*time.Second))(mux)

	show(h, http.MethodGet, "/v1/orders/7")
	show(h, http.MethodPost, "/v1/orders/7")
	show(h, http.MethodGet, "/nowhere")
	// Output:
	// GET /v1/orders/7: 200 application/json code= action= retryable=false id=req-7f3a9c21
	// POST /v1/orders/7: 405 application/problem+json code=method_not_allowed action=fix_request retryable=false id=req-7f3a9c21 allow="GET, HEAD"
	// GET /nowhere: 404 application/problem+json code=not_found action=fix_request retryable=false id=req-7f3a9c21
}

// chi's router answers unknown paths and methods itself; these handlers make
// those answers problems, with an Allow header that lists exactly what the
// router serves.
func ExampleMethodNotAllowed() {
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithWriter(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler))))))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.Post("/v1/orders", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })

	show(r, http.MethodGet, "/v1/orders")
	show(r, http.MethodGet, "/v1/customers")
	// Output:
	// GET /v1/orders: 405 application/problem+json code=method_not_allowed action=fix_request retryable=false id=req-7f3a9c21 allow="POST"
	// GET /v1/customers: 404 application/problem+json code=not_found action=fix_request retryable=false id=req-7f3a9c21
}

// A write that outlives its deadline: the client learns at the deadline
// that the outcome is unknown and, without an Idempotency-Key, that it must
// verify rather than replay.
func ExampleTimeout() {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	h := middleware.Stack(middleware.WithWriter(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))), middleware.WithRequestTimeout(10*time.Millisecond))(slow)

	for _, key := range []string{"", "a1b2c3d4"} {
		req := httptest.NewRequest(http.MethodPost, "/v1/orders", nil)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var m map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &m)
		fmt.Printf("key=%q: %d action=%v retryable=%v outcome=%v Retry-After=%q\n",
			key, rec.Code, m["action"], m["retryable"], m["outcome"], rec.Header().Get("Retry-After"))
	}
	// Output:
	// key="": 503 action=verify retryable=false outcome=unknown Retry-After=""
	// key="a1b2c3d4": 503 action=retry retryable=true outcome=unknown Retry-After="1"
}

// Only Stack takes options. The middlewares mounted one by one, without
// Stack, write with the writer the request carries (Stack's, for a layer
// mounted inside it), else with problem.Default(): a service that does not
// use Stack configures its writer once, with problem.SetDefault.
func ExampleRecover() {
	panics := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("ledger offline") })
	h := middleware.Recover()(middleware.Guard()(panics))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/ledger", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get(problem.DefaultCodeHeader))
	// Output:
	// 500 application/problem+json internal
}
