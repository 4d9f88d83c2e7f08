package main

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// TestApprovalLoopWithTheClient runs the loop through the kit's client
// transport, which retries what the contract says to retry: the 202 and its
// Retry-After are not a failure, so the refund request is sent once and one
// approval is queued (the queue does not deduplicate); the client polls the
// Location instead, and reads a refused refund as its problem.
func TestApprovalLoopWithTheClient(t *testing.T) {
	a := newApp(problem.NewWriter(problem.WithLogger(slog.New(slog.DiscardHandler))))
	var sent atomic.Int64
	counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/refunds" {
			sent.Add(1)
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	srv := httptest.NewServer(a.handler)
	defer srv.Close()
	hc := &http.Client{Transport: client.NewTransport(counting, client.WithIdempotencyKeys(), client.WithLogger(slog.New(slog.DiscardHandler)))}

	res, err := hc.Post(srv.URL+"/v1/refunds", "application/json", strings.NewReader(`{"order_id":"o1","amount":12}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted || client.ReadError(res) != nil {
		t.Fatalf("POST: %d %s", res.StatusCode, raw)
	}
	if sent.Load() != 1 {
		t.Fatalf("the refund request was sent %d times; a pending approval is never retried", sent.Load())
	}
	a.mu.Lock()
	queued := len(a.waiting)
	a.mu.Unlock()
	if queued != 1 {
		t.Fatalf("%d approvals queued, want 1", queued)
	}

	poll := func() statusDoc {
		t.Helper()
		res, err := hc.Get(srv.URL + res.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("poll: %d %s", res.StatusCode, raw)
		}
		return doc(t, raw)
	}
	if d := poll(); d.State != "pending" || d.Action != "poll" {
		t.Fatalf("poll while pending: %+v", d)
	}
	d := doc(t, raw)
	if r, _ := do(t, http.MethodPost, srv.URL+d.PollURL+"/approve", ""); r.StatusCode != http.StatusNoContent {
		t.Fatalf("approve: %d", r.StatusCode)
	}
	if d := poll(); d.State != "approved" || d.ResultURL == "" {
		t.Fatalf("poll once approved: %+v", d)
	}

	res, err = hc.Post(srv.URL+"/v1/refunds", "application/json", strings.NewReader(`{"amount":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	var re *client.ResponseError
	if err := client.ReadError(res); !errors.As(err, &re) || re.Problem.Code() != "validation_failed" || re.Problem.Status() != 422 {
		t.Fatalf("refused refund: %v", err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
