package problem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
)

var errShared = errors.New("shared lookup")

// TestCancellationWhileTheClientWaitsIsTheServers: a cancellation the
// client did not cause (a context the handler derived, a call shared with
// another request that went away), mapped to client_closed_request by the
// built-in mapping, a mapper or the handler, reaches a client still
// waiting for the answer. It closed nothing: the answer is the server's failure, 500
// internal, and a write that may have run before the cancellation is
// verified, never replayed as client_closed_request's retry would have it.
// The server counts executions; a read and a keyed write are retried.
func TestCancellationWhileTheClientWaitsIsTheServers(t *testing.T) {
	failures := map[string]func(ctx context.Context) error{
		"bare":    func(ctx context.Context) error { return ctx.Err() },
		"wrapped": func(ctx context.Context) error { return fmt.Errorf("fetch price: %w", ctx.Err()) },
		"joined":  func(ctx context.Context) error { return errors.Join(errors.New("price"), ctx.Err()) },
		"problem": func(ctx context.Context) error { return problem.New(problem.ClientClosedRequest).Wrap(ctx.Err()) },
		"mapped":  func(ctx context.Context) error { return fmt.Errorf("lookup: %w", errors.Join(errShared, ctx.Err())) },
	}
	for name, fail := range failures {
		var executed atomic.Int32
		wr := problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler)),
			problem.WithMappers(problem.MapIs(errShared, func() *problem.Problem { return problem.New(problem.ClientClosedRequest) })))
		srv := httptest.NewServer(wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
			executed.Add(1)
			ctx, cancel := context.WithCancel(r.Context())
			cancel()
			return fail(ctx)
		}))
		for _, tc := range []struct {
			method, key string
			runs        int32
			outcome     string
		}{
			{"POST", "", 1, "unknown"},
			{"PATCH", "", 1, "unknown"},
			{"GET", "", 3, "not_committed"},
			{"DELETE", "", 1, "unknown"},
			{"POST", "order-" + name, 3, "unknown"},
		} {
			executed.Store(0)
			hc := &http.Client{Transport: client.NewTransport(nil, client.WithLogger(slog.New(slog.DiscardHandler)),
				client.WithPolicy(client.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))}
			req, _ := http.NewRequest(tc.method, srv.URL+"/orders", strings.NewReader(`{"sku":"KB101"}`))
			if tc.key != "" {
				req.Header.Set(client.IdempotencyKeyHeader, tc.key)
			}
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			if res.StatusCode != 500 || m["code"] != "internal" || m["cause"] != "internal" || m["outcome"] != tc.outcome {
				t.Errorf("%s %s key %q: %d %s; want 500 internal, outcome %s", name, tc.method, tc.key, res.StatusCode, body, tc.outcome)
			}
			if n := executed.Load(); n != tc.runs {
				t.Errorf("%s %s key %q: executed %d times, want %d", name, tc.method, tc.key, n, tc.runs)
			}
		}
		srv.Close()
	}
}

// TestClientThatWentAwayIsStillClientClosedRequest: when the client did
// close the request, the record says so.
func TestClientThatWentAwayIsStillClientClosedRequest(t *testing.T) {
	var logs testlog.Buffer
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	done := make(chan struct{})
	srv := httptest.NewServer(wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
		defer close(done)
		// net/http notices a client gone only once the body was read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
		return fmt.Errorf("waiting for stock: %w", r.Context().Err())
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader("{}"))
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("the request did not end")
	}
	<-done
	var rec map[string]any
	for range 100 {
		if json.Unmarshal([]byte(logs.String()), &rec) == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rec["code"] != "client_closed_request" || rec["status"] != float64(499) {
		t.Errorf("log record %v; want client_closed_request 499", rec)
	}
}
