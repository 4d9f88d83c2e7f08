// Command stdlib is faultline on the standard library alone: an
// http.ServeMux with Go 1.22 method patterns, wrapped in middleware.Stack.
// The mux's own 404 and 405 answers are text/plain; Guard turns them into
// problems (keeping the Allow header), and does the same for any handler
// that still calls http.Error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stdlib:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("stdlib", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8081", "listen address")
	timeout := fs.Duration("timeout", 2*time.Second, "per-request deadline")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return errors.New("-timeout must be positive")
	}
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(stderr, nil))))

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "faultline stdlib example listening on http://%s\n", ln.Addr())
	wr := problem.NewWriter(problem.WithLogger(logger))
	return serve.Run(ctx, serve.NewServer(newHandler(wr, *timeout)), ln, serve.WithWriter(wr), serve.WithShutdownBudget(5*time.Second))
}

type order struct {
	ID       string `json:"id"`
	SKU      string `json:"sku" validate:"required,alphanum,max=32"`
	Quantity int    `json:"quantity" validate:"required,min=1,max=100"`
}

func newHandler(wr *problem.Writer, timeout time.Duration) http.Handler {
	var (
		mu     sync.Mutex
		orders = map[string]order{"ord_1": {ID: "ord_1", SKU: "KB101", Quantity: 1}}
		next   = 2
	)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.Handle("POST /v1/orders", wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		o, err := bind.Decode[order](r)
		if err != nil {
			return err
		}
		mu.Lock()
		o.ID = "ord_" + strconv.Itoa(next)
		next++
		orders[o.ID] = o
		mu.Unlock()
		w.Header().Set("Location", "/v1/orders/"+o.ID)
		writeJSON(w, http.StatusCreated, o)
		return nil
	}))
	mux.Handle("GET /v1/orders/{id}", wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		mu.Lock()
		o, ok := orders[r.PathValue("id")]
		mu.Unlock()
		if !ok {
			return problem.New(problem.NotFound).WithDetail("No order exists with this id.")
		}
		writeJSON(w, http.StatusOK, o)
		return nil
	}))
	mux.HandleFunc("GET /v1/panic", func(http.ResponseWriter, *http.Request) {
		panic("inventory cache is nil")
	})
	// A handler written before faultline: its bare http.Error names an
	// internal address. Guard replaces status and body with the unavailable
	// problem; the text is never sent.
	mux.HandleFunc("GET /v1/legacy", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "connection pool exhausted: 10.0.3.7:6432", http.StatusServiceUnavailable)
	})

	return middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithBodyLimit(64<<10),
		middleware.WithRequestTimeout(timeout),
	)(mux)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
