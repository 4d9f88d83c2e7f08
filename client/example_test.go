package client_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

func ExamplePolicy_Decide() {
	pol := client.Policy{MaxAttempts: 3, BaseDelay: 100 * time.Millisecond}

	limited := problem.New(problem.RateLimited).WithRetryAfter(2 * time.Second)
	d := pol.Decide(client.Attempt{Method: "GET", Problem: limited, Number: 1, Jitter: 0.5})
	fmt.Println(d.Verdict, d.Delay)

	// A write that timed out may have been applied: without an
	// Idempotency-Key it is never replayed.
	timedOut := problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown)
	d = pol.Decide(client.Attempt{Method: "POST", Problem: timedOut, Number: 1})
	fmt.Println(d.Verdict)
	d = pol.Decide(client.Attempt{Method: "POST", Problem: timedOut, Number: 1, IdempotencyKey: true})
	fmt.Println(d.Verdict, d.Delay)

	d = pol.Decide(client.Attempt{Method: "POST", Problem: problem.New(problem.ValidationFailed), Number: 1})
	fmt.Println(d.Verdict)
	// Output:
	// retry 2.05s
	// verify
	// retry 0s
	// fix_request
}

func ExampleReadError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "0193b1c2")
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"status":503,"code":"unavailable","title":"Service unavailable","detail":"Back in a moment.","action":"retry","cause":"environment","retryable":true}`)
	}))
	defer srv.Close()

	res, err := http.Get(srv.URL)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()

	err = client.ReadError(res)
	var p *problem.Problem
	if errors.As(err, &p) {
		fmt.Println(p.Code(), p.Status(), p.CorrelationID(), p.RetryAfter())
	}
	fmt.Println(client.Line(err))
	fmt.Println(client.ExitCode("GET", err) == client.ExitTemporary)
	// Output:
	// unavailable 503 0193b1c2 3s
	// unavailable: Back in a moment.
	// true
}

func ExampleNewTransport() {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"status":503,"code":"unavailable","action":"retry","retryable":true,"retry_after_ms":10,"outcome":"not_started"}`)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()

	rt := client.NewTransport(nil,
		client.WithIdempotencyKeys(),
		// The wait is the server's retry_after_ms plus a random share of
		// the backoff, here at most a millisecond.
		client.WithPolicy(client.Policy{BaseDelay: time.Millisecond}),
		client.WithLogger(slog.New(slog.DiscardHandler)),
		client.WithObserver(client.Observer{
			Attempt: func(a client.AttemptReport) {
				fmt.Println("attempt", a.Attempt, a.Status, a.Code, a.Decision.Verdict, a.Decision.Delay.Truncate(10*time.Millisecond))
			},
			Operation: func(o client.OperationReport) {
				fmt.Println("operation", o.Attempts, "attempts, final status", o.Status)
			},
		}))
	hc := &http.Client{Transport: rt}

	res, err := hc.Post(srv.URL, "application/json", strings.NewReader(`{"sku":"KB101"}`))
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	fmt.Println(res.StatusCode)
	// Output:
	// attempt 1 503 unavailable retry 10ms
	// attempt 2 201  stop 0s
	// operation 2 attempts, final status 201
	// 201
}

func ExampleExitCode() {
	for _, c := range []problem.Kind{problem.ValidationFailed, problem.Unauthorized, problem.PolicyDenied, problem.RateLimited, problem.UpstreamError, problem.Internal} {
		fmt.Println(c, client.ExitCode("GET", problem.New(c)))
	}
	timedOut := problem.New(problem.Timeout).WithOutcome(problem.OutcomeUnknown)
	fmt.Println("timed-out POST", client.ExitCode("POST", timedOut))
	// Output:
	// validation_failed 2
	// unauthorized 3
	// policy_denied 4
	// rate_limited 5
	// upstream_error 6
	// internal 1
	// timed-out POST 7
}
