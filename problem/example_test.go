package problem_test

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/faultline-go/faultline/problem"
)

// Writing a problem: pick a code, say what happened in words meant for the
// client, write it.
func ExampleWriter_Write() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)), problem.WithBaseURI("https://errors.example.com/"))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, problem.New(problem.NotFound).WithDetail("No order 42 exists."))
	})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/orders/42", nil))
	fmt.Println(rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("X-Error-Code"))
	fmt.Println(rec.Body.String())
	// Output:
	// 404 application/problem+json not_found
	// {"type":"https://errors.example.com/not_found","title":"Not found","status":404,"detail":"No order 42 exists.","instance":"/v1/orders/42","code":"not_found","action":"fix_request","cause":"request","retryable":false}
}

var errOutOfStock = errors.New("inventory: out of stock")

// Returning errors from handlers: a handler that returns its failure cannot
// forget to stop after writing one. A Problem or a Kind is rendered as it
// is; any other error becomes internal, its text kept for the log only.
func ExampleWriter_Handler() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	h := wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.Query().Get("id") == "" {
			return problem.New(problem.BadRequest).WithDetail("The id parameter is required.")
		}
		if r.URL.Query().Get("id") == "gone" {
			return problem.Gone // a Kind is an error too
		}
		return fmt.Errorf("load order: %w", errors.New("dial tcp 10.0.0.7:5432: connection refused"))
	})
	for _, target := range []string{"/orders", "/orders?id=gone", "/orders?id=7"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		p, _ := problem.Parse(rec.Body.Bytes())
		fmt.Println(rec.Code, string(p.Code())+": "+p.Message())
	}
	// Output:
	// 400 bad_request: The id parameter is required.
	// 410 gone: This resource existed but has been removed for good.
	// 500 internal: The server failed to complete the request. The failure was logged under the correlation ID.
}

// Registering a code in a registry of the service's own: its codes live
// beside the built-in ones, and become the documentation table. (A service
// using the default registry declares each as
// `var OutOfStock = problem.MustRegister(problem.Definition{...})`.)
func ExampleRegistry_Register() {
	const outOfStock problem.Kind = "out_of_stock"
	reg := problem.NewRegistry()
	err := reg.Register(problem.Definition{
		Code:          outOfStock,
		Status:        http.StatusConflict,
		Title:         "Out of stock",
		Action:        problem.ActionNone,
		Cause:         problem.CauseRequest,
		ShowDetail:    true,
		DefaultDetail: "The item is out of stock.",
		Meaning:       "Nothing is left to sell; do not retry the order.",
	})
	if err != nil {
		panic(err)
	}
	// The service's own codes point at its own pages; without a base URI
	// of its own they would be type about:blank.
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)), problem.WithRegistry(reg), problem.WithBaseURI("https://api.example.com/problems/"))
	rec := httptest.NewRecorder()
	_ = wr.Write(rec, httptest.NewRequest("POST", "/v1/orders", nil), problem.New(outOfStock))
	fmt.Println(rec.Code, rec.Body.String())

	// A code is defined once.
	err = reg.Register(problem.Definition{Code: outOfStock, Status: 409, Title: "Again", Action: problem.ActionNone, Cause: problem.CauseRequest})
	fmt.Println(errors.Is(err, problem.ErrInvalidCode))
	// Output:
	// 409 {"type":"https://api.example.com/problems/out_of_stock","title":"Out of stock","status":409,"detail":"The item is out of stock.","instance":"/v1/orders","code":"out_of_stock","action":"none","cause":"request","retryable":false}
	// true
}

type notFoundError struct{ id string }

func (e *notFoundError) Error() string { return "order " + e.id + " not in shard db-7" }

// Mapping domain errors: MapIs for a sentinel, MapAs for an error type, both
// found anywhere in a wrapped chain. The mapped problem's detail is the
// only text the client sees.
func ExampleMapAs() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)), problem.WithMappers(
		problem.MapIs(errOutOfStock, func() *problem.Problem {
			return problem.New(problem.Conflict).WithDetail("The item is out of stock.")
		}),
		problem.MapAs(func(e *notFoundError) *problem.Problem {
			return problem.New(problem.NotFound).WithDetail("No order " + e.id + " exists.")
		}),
	))
	for _, err := range []error{
		fmt.Errorf("checkout: %w", errOutOfStock),
		fmt.Errorf("load: %w", &notFoundError{id: "42"}),
	} {
		p := wr.FromError(err)
		fmt.Println(p.Status(), string(p.Code())+": "+p.Message(), errors.Is(p, errOutOfStock))
	}
	// Output:
	// 409 conflict: The item is out of stock. true
	// 404 not_found: No order 42 exists. false
}

// Sharing a problem: package-level values are safe, because every With
// method returns a new Problem.
func ExampleProblem_WithDetail() {
	errNoBook := problem.New(problem.NotFound) // shared by every request
	mine := errNoBook.WithDetail("Book 7 does not exist.")
	fmt.Println(mine.Message())
	fmt.Println(errNoBook.Message())
	fmt.Println(errors.Is(mine, problem.NotFound))
	// Output:
	// Book 7 does not exist.
	// No resource exists at this address.
	// true
}

// A bare status no code claims keeps its own title under about:blank; its
// code names the family.
func ExampleRegistry_ForStatus() {
	p := problem.DefaultRegistry().ForStatus(http.StatusTeapot)
	fmt.Println(p.Type(), p.Status(), p.Title(), p.Code())
	// Output: about:blank 418 I'm a teapot bad_request
}

// An unknown outcome without an Idempotency-Key: the writer tells the
// client to verify, never to retry.
func ExampleProblem_ForRequest() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)))
	r := httptest.NewRequest("POST", "/v1/payments", nil)
	rec := httptest.NewRecorder()
	_ = wr.Write(rec, r, problem.New(problem.Timeout).ForRequest(r))
	p, _ := problem.Parse(rec.Body.Bytes())
	fmt.Println(p.Action(), p.Retryable(), p.Outcome())
	// Output: verify false unknown
}

// Observing every written problem, for metrics or traces.
func ExampleWithObserver() {
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)), problem.WithObserver(func(r *http.Request, p *problem.Problem) {
		fmt.Fprintln(os.Stdout, "observed", r.Method, p.Status(), p.Code(), p.Action())
	}))
	_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/x", nil), wr.FromError(errors.New("boom")))
	// Output: observed GET 500 internal retry
}

// Reading a problem another server sent.
func ExampleParse() {
	p, err := problem.Parse([]byte(`{"type":"https://example.com/probs/out-of-credit","title":"You do not have enough credit.","status":"403","balance":30}`))
	if err != nil {
		panic(err)
	}
	balance, _ := p.Extension("balance")
	fmt.Println(p.Title(), p.Status(), balance)
	// Output: You do not have enough credit. 0 30
}
