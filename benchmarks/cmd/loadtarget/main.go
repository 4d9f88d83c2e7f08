// Command loadtarget is the server load.sh drives: the same two routes on a
// bare chi router or behind faultline's full stack, so the difference in
// throughput is the kit's cost and nothing else.
//
//	GET /ok    200 with a small JSON body
//	GET /fail  a failure: http.Error 500 on the bare router; on faultline, an
//	           error whose text holds a DSN with a password, returned through
//	           the Writer's Handler, so every response is mapped, sanitized,
//	           rendered and logged
//
// A third mode, handwritten, serves only /fail, as a team writes it by hand
// with chi alone (package anchor): the error route faultline's is held to.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/benchmarks/internal/anchor"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

var okBody = []byte(`{"status":"ok"}`)

func ok(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(okBody)
}

// errUpstream is built once: the cost under test is faultline's handling of
// the error, not fmt.Errorf.
var errUpstream = errors.New(`load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: SELECT * FROM orders WHERE id = 'ord_9': connection refused`)

func newHandler(mode string, logOut io.Writer) (http.Handler, error) {
	r := chi.NewRouter()
	switch mode {
	case "bare":
		r.Get("/ok", ok)
		r.Get("/fail", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "internal error", http.StatusInternalServerError)
		})
	case "faultline":
		logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(logOut, nil))))
		wr := problem.NewWriter(problem.WithLogger(logger))
		r.Use(middleware.Stack(
			middleware.WithWriter(wr),
			middleware.WithBodyLimit(1<<20),
			middleware.WithRequestTimeout(5*time.Second),
		))
		r.NotFound(middleware.NotFound())
		r.MethodNotAllowed(middleware.MethodNotAllowed())
		r.Get("/ok", ok)
		r.Method(http.MethodGet, "/fail", wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return errUpstream
		}))
	case "handwritten":
		return anchor.ErrorRoute(slog.New(slog.NewJSONHandler(logOut, nil)), func() error { return errUpstream }), nil
	default:
		return nil, fmt.Errorf("-mode must be bare, faultline or handwritten, not %q", mode)
	}
	return r, nil
}

func main() {
	mode := flag.String("mode", "faultline", "bare, faultline or handwritten")
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *mode, *addr, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "loadtarget:", err)
		os.Exit(1)
	}
}

// run prints the bound address as its first stdout line, which is how
// load.sh learns the free port.
func run(ctx context.Context, mode, addr string, stdout, logOut io.Writer) error {
	h, err := newHandler(mode, logOut)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, ln.Addr().String())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(shutdownCtx)
}
