// Command agent-client calls the showcase the way an automated client (a
// script, an AI agent) should: it decides what to do next from the
// problem's code, action, retryable, retry_after_ms and outcome alone, and
// prints each problem in its one-line CLI form.
//
//	go run ./examples/showcase &
//	go run ./examples/agent-client -base http://127.0.0.1:8080
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-go/faultline/problem"
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
	pol := retryPolicy{}
	fs.IntVar(&pol.maxAttempts, "max-attempts", 3, "attempts per call, the first included")
	fs.DurationVar(&pol.backoff, "backoff", 200*time.Millisecond, "first backoff when the server names no retry time")
	fs.DurationVar(&pol.maxBackoff, "max-backoff", 2*time.Second, "longest backoff")
	fs.DurationVar(&pol.maxWait, "max-wait", 15*time.Second, "longest retry_after_ms the client agrees to wait")
	limitedCalls := fs.Int("limited-calls", 4, "calls to /v1/limited (the showcase allows 3 per window)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if pol.maxAttempts < 1 || pol.backoff <= 0 || pol.maxBackoff <= 0 {
		return errors.New("-max-attempts, -backoff and -max-backoff must be positive")
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, c := range script(*limitedCalls) {
		if err := perform(ctx, client, strings.TrimSuffix(*base, "/"), c, pol, stdout); err != nil {
			return err
		}
	}
	return nil
}

// perform makes one call, with retries as the problems direct. Only a
// transport failure or a cancelled ctx is an error: every problem is an
// answer the client handles.
func perform(ctx context.Context, client *http.Client, base string, c call, pol retryPolicy, out io.Writer) error {
	for attempt := 1; ; attempt++ {
		status, body, err := send(ctx, client, base, c)
		if err != nil {
			return err
		}
		label := fmt.Sprintf("%s %s", c.method, c.path)
		if c.idempotencyKey != "" {
			label += " (Idempotency-Key)"
		}
		if status < 400 {
			fmt.Fprintf(out, "%s [%d] ok %d\n", label, attempt, status)
			return nil
		}
		p, err := problem.Parse(body)
		if err != nil {
			// Not from a faultline server (a proxy's HTML page, say): without
			// the machine members there is nothing safe to decide.
			fmt.Fprintf(out, "%s [%d] status %d without a problem document: stop\n", label, attempt, status)
			return nil
		}
		d := decide(p, attempt, c.idempotencyKey != "", pol)
		fmt.Fprintf(out, "%s [%d] %s\n", label, attempt, p.CLILine())
		if d.verdict != verdictRetry {
			fmt.Fprintf(out, "  -> %s: %s (correlation_id %s)\n", d.verdict, d.why, p.CorrelationID)
			return nil
		}
		fmt.Fprintf(out, "  -> retry in %s\n", d.wait)
		t := time.NewTimer(d.wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

func send(ctx context.Context, client *http.Client, base string, c call) (int, []byte, error) {
	var body io.Reader
	if c.body != "" {
		body = bytes.NewReader([]byte(c.body))
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/problem+json, application/json")
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", c.idempotencyKey)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, b, err
}
