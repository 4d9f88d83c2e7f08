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
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/faultline-go/faultline/serve"
)

// legacyUntil ends the showcase's transition window for the pre-RFC error
// and message members. It is a fixed date, as a real deployment's would be,
// announced in the documentation rather than in Deprecation/Sunset headers,
// which would describe the endpoints themselves.
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
	addr      string
	bodyLimit int64
	// timeout is the server's own deadline per request; /v1/slow works for
	// slow, longer than that.
	timeout     time.Duration
	slow        time.Duration
	limit       int
	limitWindow time.Duration
	// docsBase is where the problem catalog is served, so every type URI
	// the showcase sends resolves on the showcase itself.
	docsBase string
	// insecureDev shows hidden details and error chains in responses.
	insecureDev bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("showcase", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.Int64Var(&cfg.bodyLimit, "body-limit", 4<<10, "request body limit in bytes")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Second, "per-request deadline")
	fs.DurationVar(&cfg.slow, "slow", 30*time.Second, "how long /v1/slow works")
	fs.IntVar(&cfg.limit, "limit", 3, "requests per window on /v1/limited")
	fs.DurationVar(&cfg.limitWindow, "limit-window", 10*time.Second, "window of the /v1/limited limit")
	fs.BoolVar(&cfg.insecureDev, "insecure-dev", false, "development mode: responses carry hidden details and error chains (refused when FAULTLINE_ENV=production)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if cfg.bodyLimit <= 0 || cfg.timeout <= 0 || cfg.slow <= 0 || cfg.limit <= 0 || cfg.limitWindow <= 0 {
		return cfg, errors.New("-body-limit, -timeout, -slow, -limit and -limit-window must be positive")
	}
	return cfg, nil
}

// newLogger writes JSON lines in which every record logged with a request's
// context carries its correlation_id, and credentials are redacted while
// hosts, addresses and SQL stay for the operator.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(w, nil))))
}

func newWriter(logger *slog.Logger, cfg config) *problem.Writer {
	opts := []problem.Option{
		problem.WithLogger(logger),
		problem.WithBaseURI(cfg.docsBase),
		problem.WithLegacy(problem.Legacy{Until: legacyUntil}),
		problem.WithMappers(upstreamMapper),
	}
	if cfg.insecureDev {
		opts = append(opts, problem.WithInsecureDevelopmentMode())
	}
	return problem.NewWriter(opts...)
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
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	cfg.docsBase = base + "/problems/"
	srv, err := newServer(cfg, logger, getenv)
	if err != nil {
		ln.Close()
		return err
	}
	defer func() { _ = srv.close() }()
	fmt.Fprintf(stdout, "faultline showcase listening on %s\n\n", base)
	printCurls(stdout, base, cfg)

	logger.Info("listening", slog.String("addr", ln.Addr().String()))
	return serve.Run(ctx, serve.NewServer(srv.handler), ln, serve.WithWriter(srv.writer), serve.WithShutdownBudget(5*time.Second))
}

func printCurls(w io.Writer, base string, cfg config) {
	const jsonCT = " -H 'Content-Type: application/json'"
	lines := []struct{ what, cmd string }{
		{"200: success is silent", "curl -i " + base + "/healthz"},
		{"201: a valid order", "curl -i -X POST " + base + "/v1/orders" + jsonCT + ` -d '{"sku":"KB101","quantity":2,"email":"grace@example.com"}'`},
		{"422 validation_failed: every field error at once, with JSON Pointers", "curl -i -X POST " + base + "/v1/orders" + jsonCT + ` -d '{"sku":"","quantity":0,"email":"nope"}'`},
		{"400 invalid_json", "curl -i -X POST " + base + "/v1/orders" + jsonCT + ` -d '{"sku":'`},
		{"415 unsupported_media_type", "curl -i -X POST " + base + "/v1/orders -H 'Content-Type: text/plain' -d 'sku=KB101'"},
		{fmt.Sprintf("413 request_too_large (the limit is %d bytes)", cfg.bodyLimit), fmt.Sprintf("printf '%%0%dd' 0 | curl -i -X POST %s/v1/orders%s --data-binary @-", cfg.bodyLimit+1, base, jsonCT)},
		{"200: a known order", "curl -i " + base + "/v1/orders/ord_1"},
		{"404 not_found: an unknown order", "curl -i " + base + "/v1/orders/ord_404"},
		{"404 not_found: no such route", "curl -i " + base + "/nowhere"},
		{"405 method_not_allowed, with an Allow header", "curl -i -X PUT " + base + "/healthz"},
		{"403 policy_denied: action none, do not work around it", "curl -i -X DELETE " + base + "/v1/orders/ord_1"},
		{"500 internal: a handler panic; the panic and its stack go to the log only", "curl -i " + base + "/v1/panic"},
		{fmt.Sprintf("503 timeout after %s: GET is not_committed and retryable", cfg.timeout), "curl -i " + base + "/v1/slow"},
		{"503 timeout on a write: outcome unknown, retryable only with an Idempotency-Key", "curl -i -X POST " + base + "/v1/slow -H 'Idempotency-Key: 7f1c0a52'"},
		{"502 upstream_error: the private IP and SQL reach the log only, the DSN password nowhere", "curl -i " + base + "/v1/upstream"},
		{fmt.Sprintf("429 rate_limited after %d requests per %s, with Retry-After", cfg.limit, cfg.limitWindow), fmt.Sprintf("for i in $(seq %d); do curl -s -o /dev/null -w '%%{http_code}\\n' %s/v1/limited; done", cfg.limit+1, base)},
		{"every type URI resolves: the catalog of problem types, as HTML or JSON", "curl -i " + base + "/problems/; curl -i -H 'Accept: application/json' " + base + "/problems/rate_limited"},
		{"the same problem as XML, and as the plain-text proxy plane", "curl -i -H 'Accept: application/problem+xml' " + base + "/nowhere; curl -i -H 'Accept: text/plain' " + base + "/nowhere"},
	}
	for _, l := range lines {
		fmt.Fprintf(w, "# %s\n%s\n\n", l.what, l.cmd)
	}
	fmt.Fprintf(w, "# a client that decides from code, action, retryable, retry_after_ms and outcome\ngo run ./examples/agent-client -base %s\n\n", base)
}
