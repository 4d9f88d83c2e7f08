// Command showcase is a chi server wired with faultline, with one route per
// failure class and a curl line for each, so a newcomer sees every problem
// the kit produces and the log line that goes with it.
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

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// legacyUntil ends the showcase's transition window for the pre-RFC error
// and message members. It is a fixed date so every run announces the same
// Sunset, as a real deployment would.
var legacyUntil = time.Date(2027, time.June, 1, 0, 0, 0, 0, time.UTC)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "showcase:", err)
		os.Exit(1)
	}
}

type config struct {
	addr string
	// timeout is the server's own deadline per request; /v1/slow outlives it.
	timeout time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("showcase", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Second, "per-request deadline")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if cfg.timeout <= 0 {
		return cfg, errors.New("-timeout must be positive")
	}
	return cfg, nil
}

// newLogger writes JSON lines in which every record logged with a request's
// context carries its correlation_id, and credentials are redacted while
// hosts, addresses and SQL stay for the operator.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(w, nil))))
}

func newWriter(logger *slog.Logger) *problem.Writer {
	return problem.NewWriter(
		problem.WithLogger(logger),
		problem.WithLegacy(problem.Legacy{Until: legacyUntil}),
		problem.WithMappers(upstreamMapper),
	)
}

// run serves until ctx is done. It prints the listening address and the
// curl lines to stdout only once the listener is open, so whatever reads
// them (a person, a test) can connect straight away.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logger := newLogger(stderr)
	srv, err := newServer(cfg, logger, getenv)
	if err != nil {
		return err
	}
	defer srv.close()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "faultline showcase listening on %s\n\n", base)
	printCurls(stdout, base)

	hs := &http.Server{
		Handler:           srv.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	logger.Info("listening", slog.String("addr", ln.Addr().String()))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	<-errc
	return nil
}

func printCurls(w io.Writer, base string) {
	lines := []struct{ what, cmd string }{
		{"200 success", "curl -i " + base + "/healthz"},
		{"200 a known order", "curl -i " + base + "/v1/orders/ord_1"},
		{"404 not_found (unknown order)", "curl -i " + base + "/v1/orders/ord_404"},
		{"404 not_found (no such route)", "curl -i " + base + "/nowhere"},
		{"405 method_not_allowed, with Allow", "curl -i -X PUT " + base + "/healthz"},
		{"502 upstream_error; the DSN, IP and SQL stay in the log", "curl -i " + base + "/v1/upstream"},
	}
	for _, l := range lines {
		fmt.Fprintf(w, "# %s\n%s\n\n", l.what, l.cmd)
	}
}
