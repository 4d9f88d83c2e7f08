package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// TestTransportWaitPastTheCallersDeadlineIsNotBegun: when the server asks
// for a wait that ends after the caller's deadline (a context deadline,
// http.Client.Timeout), no retry can start in time. The operation stops at
// once with the server's answer, as it does at MaxElapsed; it used to
// sleep until the deadline and return only "context deadline exceeded",
// which lost the problem and sent a write the server had refused before
// starting it to be verified (exit code 7) instead of run again later.
func TestTransportWaitPastTheCallersDeadlineIsNotBegun(t *testing.T) {
	var executed atomic.Int32
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		executed.Add(1)
		return problem.New(problem.RateLimited).WithRetryAfter(4 * time.Second)
	})
	const deadline = 1500 * time.Millisecond
	for _, way := range []string{"context deadline", "Client.Timeout"} {
		for _, method := range []string{"GET", "PUT", "POST", "PATCH"} {
			executed.Store(0)
			var rec recorder
			c := newClient(&rec, client.WithPolicy(client.Policy{MaxAttempts: 3, MaxElapsed: time.Minute}))
			ctx := context.Background()
			if way == "Client.Timeout" {
				c.Timeout = deadline
			} else {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, deadline)
				defer cancel()
			}
			start := time.Now()
			res, err := c.Do(request(t, ctx, method, srv.URL))
			took := time.Since(start)
			if err != nil {
				t.Errorf("%s %s: %v after %s, want the 429 at once", way, method, err, took)
				continue
			}
			err = client.ReadError(res)
			res.Body.Close()
			if took >= deadline {
				t.Errorf("%s %s: returned after %s, past the deadline", way, method, took)
			}
			var p *problem.Problem
			if !errors.As(err, &p) || p.Code() != problem.RateLimited {
				t.Errorf("%s %s: %v, want rate_limited", way, method, err)
			}
			if code := client.ExitCode(method, err); code != client.ExitTemporary {
				t.Errorf("%s %s: exit code %d, want %d", way, method, code, client.ExitTemporary)
			}
			if n := executed.Load(); n != 1 {
				t.Errorf("%s %s: executed %d times", way, method, n)
			}
			if op := rec.last(t); op.Decision.Verdict != client.Stop || op.Attempts != 1 {
				t.Errorf("%s %s: operation %+v", way, method, op)
			}
		}
	}
}

// A wait that ends before the caller's deadline is still made.
func TestTransportWaitWithinTheCallersDeadlineIsMade(t *testing.T) {
	var executed atomic.Int32
	srv := kitServer(t, func(http.ResponseWriter, *http.Request) error {
		if executed.Add(1) == 1 {
			return problem.New(problem.RateLimited).WithRetryAfter(50 * time.Millisecond)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var rec recorder
	res, err := newClient(&rec).Do(request(t, ctx, "POST", srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || executed.Load() != 2 {
		t.Errorf("status %d after %d executions, want 200 after 2", res.StatusCode, executed.Load())
	}
}
