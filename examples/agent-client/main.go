// Command agent-client calls the showcase the way an automated client (a
// script, an AI agent) should, using the kit's client package: every
// decision comes from the problem's code, action, retryable,
// retry_after_ms and outcome, each problem is printed in its one-line CLI
// form, and each call ends with its exit code class.
//
//	go run ./examples/showcase &
//	go run ./examples/agent-client -base http://127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "agent-client:", err)
		os.Exit(1)
	}
}

type call struct {
	method, path, body string
	// idempotencyKey makes a write safe to replay: the server applies a
	// key at most once.
	idempotencyKey string
}

// script is one call per failure class of the showcase; /v1/limited is
// called until its limit answers.
func script(limitedCalls int) []call {
	const order = `{"sku":"KB101","quantity":2,"email":"grace@example.com"}`
	calls := []call{
		{method: "GET", path: "/healthz"},
		{method: "POST", path: "/v1/orders", body: order},
		{method: "POST", path: "/v1/orders", body: `{"sku":"","quantity":0,"email":"nope"}`},
		{method: "GET", path: "/v1/orders/ord_404"},
		{method: "DELETE", path: "/v1/orders/ord_1"},
		{method: "GET", path: "/v1/upstream"},
		{method: "GET", path: "/v1/slow"},
		{method: "POST", path: "/v1/slow", body: order},
		{method: "POST", path: "/v1/slow", body: order, idempotencyKey: "agent-7f1c0a52"},
	}
	for range limitedCalls {
		calls = append(calls, call{method: "GET", path: "/v1/limited"})
	}
	return calls
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agent-client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "http://127.0.0.1:8080", "base URL of the showcase")
	var pol client.Policy
	fs.IntVar(&pol.MaxAttempts, "max-attempts", 3, "attempts per call, the first included")
	fs.DurationVar(&pol.BaseDelay, "backoff", 200*time.Millisecond, "first backoff, above the server's retry_after_ms")
	fs.DurationVar(&pol.MaxDelay, "max-backoff", 2*time.Second, "longest backoff")
	fs.DurationVar(&pol.MaxElapsed, "deadline", 15*time.Second, "total time one call may take, retries included")
	limitedCalls := fs.Int("limited-calls", 4, "calls to /v1/limited (the showcase allows 3 per window)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if pol.MaxAttempts < 1 || pol.BaseDelay <= 0 || pol.MaxDelay <= 0 || pol.MaxElapsed <= 0 {
		return errors.New("-max-attempts, -backoff, -max-backoff and -deadline must be positive")
	}
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	for _, c := range script(*limitedCalls) {
		if err := perform(ctx, transport, pol, strings.TrimSuffix(*base, "/"), c, stdout); err != nil {
			return err
		}
	}
	return nil
}

// perform makes one call; the client package retries as the problems
// direct and the observer prints each attempt. Only a cancelled ctx is an
// error: every other outcome is an answer the agent reports.
func perform(ctx context.Context, base http.RoundTripper, pol client.Policy, url string, c call, out io.Writer) error {
	label := c.method + " " + c.path
	if c.idempotencyKey != "" {
		label += " (Idempotency-Key)"
	}
	rt := client.NewTransport(base,
		client.WithPolicy(pol),
		client.WithLogger(slog.New(slog.DiscardHandler)),
		client.WithObserver(printer(label, out)))
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, url+c.path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/problem+json")
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.idempotencyKey != "" {
		req.Header.Set(client.IdempotencyKeyHeader, c.idempotencyKey)
	}
	res, err := rt.RoundTrip(req)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		err = client.ReadError(res)
		res.Body.Close()
	}
	if err != nil {
		fmt.Fprintf(out, "  exit code %d\n", client.ExitCode(c.method, err))
	}
	return nil
}

// printer reports each attempt on one line, the CLI form of its problem,
// and what the client does next.
func printer(label string, out io.Writer) client.Observer {
	return client.Observer{
		Attempt: func(a client.AttemptReport) {
			switch {
			case a.Err != nil:
				fmt.Fprintf(out, "%s [%d] %s\n", label, a.Attempt, client.Line(a.Err))
			case a.Problem == nil:
				fmt.Fprintf(out, "%s [%d] ok %d\n", label, a.Attempt, a.Status)
				return
			default:
				fmt.Fprintf(out, "%s [%d] %s\n", label, a.Attempt, client.Line(a.Problem))
			}
			if a.Decision.Verdict == client.Retry {
				fmt.Fprintf(out, "  -> retry in %s\n", a.Decision.Delay.Round(time.Millisecond))
			}
		},
		Operation: func(o client.OperationReport) {
			if o.Status >= 400 || o.Err != nil {
				fmt.Fprintf(out, "  -> %s: %s\n", o.Decision.Verdict, o.Decision.Reason)
			}
		},
	}
}
