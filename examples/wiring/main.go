// Command wiring is a chi service with every layer of faultline added:
// the writer configured once, Stack with a body limit and a deadline, a
// rate limit, strict binding, a mapped domain error, an existing handler
// left as it was, and serve's hardened server and drain. The README's
// quick adoption (examples/quickstart) grows into this.
package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
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

// newWriter is the one place to configure: logger, base URI, mappers,
// registry, legacy window. Every layer finds it from the router's Stack.
func newWriter(logger *slog.Logger) *problem.Writer {
	return problem.NewWriter(
		problem.WithLogger(logger),
		problem.WithBaseURI("https://errors.example.com/"),
		problem.WithMappers(problem.MapIs(errOutOfStock, func() *problem.Problem {
			return problem.New(problem.Conflict).WithDetail("That item is out of stock.")
		})),
	)
}

func newRouter(wr *problem.Writer) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.Stack( // correlation, recover, guard, body limit, timeout; HEAD on GET routes
		middleware.WithWriter(wr), // handed down: everything below writes problems through wr
		middleware.WithBodyLimit(1<<20),
		middleware.WithRequestTimeout(5*time.Second),
	))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	r.With(ratelimit.LimitBy(100, time.Minute, ratelimit.ByIP)).Post("/v1/orders", wr.Handler(createOrder))
	r.Get("/v1/orders/{id}", getOrder)
	return r
}

func main() {
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(os.Stderr, nil))))
	wr := newWriter(logger)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:8080")
	if err != nil {
		logger.Error("listen", "error", err)
		os.Exit(1)
	}
	// A hardened http.Server; Run drains on SIGTERM and answers what is
	// still running with a problem.
	if err := serve.Run(ctx, serve.NewServer(newRouter(wr)), ln, serve.WithWriter(wr)); err != nil {
		logger.Error("server stopped", "error", err)
		os.Exit(1)
	}
}
