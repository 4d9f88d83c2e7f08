// Command wiring is the README's "Wiring it in", whole: a chi service
// with faultline added. Its test checks that the README shows exactly this
// file, so the snippet always compiles.
package main

import (
	"errors"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
	"github.com/faultline-go/faultline/sanitize"
)

type Order struct {
	SKU      string `json:"sku" validate:"required"`
	Quantity int    `json:"quantity" validate:"min=1"`
}

var errOutOfStock = errors.New("out of stock")

func createOrder(w http.ResponseWriter, r *http.Request) error {
	order, err := bind.Decode[Order](r) // 415, 413, invalid_json or validation_failed with every field error
	if err != nil {
		return err // a *problem.Problem: rendered as is
	}
	if order.SKU == "KB-0" {
		return errOutOfStock // mapped below; an unmapped error is internal, its text only in the log
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

// Existing handlers keep their signature: a bare http.Error becomes a problem.
func getOrder(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "no order "+chi.URLParam(r, "id"), http.StatusNotFound)
}

func newRouter(logger *slog.Logger) http.Handler {
	wr := problem.NewWriter( // the one place to configure: logger, base URI, registry, legacy window
		problem.WithLogger(logger),
		problem.WithBaseURI("https://errors.example.com/"),
		problem.WithMappers(problem.MapIs(errOutOfStock, func() *problem.Problem {
			return problem.New(problem.Conflict).WithDetail("That item is out of stock.")
		})),
	)
	r := chi.NewRouter()
	r.Use(middleware.Stack( // correlation, recover, guard, body limit, timeout; HEAD on GET routes
		middleware.WithWriter(wr), // handed down: everything below writes problems through wr
		middleware.WithBodyLimit(1<<20),
		middleware.WithRequestTimeout(5*time.Second),
	))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.With(ratelimit.LimitBy(100, time.Minute, ratelimit.ByIP)).Method(http.MethodPost, "/v1/orders", wr.Handler(createOrder))
	r.Get("/v1/orders/{id}", getOrder)
	return r
}

func main() {
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil))))
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: newRouter(logger), ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		logger.Error("server stopped", "error", err)
		os.Exit(1)
	}
}
