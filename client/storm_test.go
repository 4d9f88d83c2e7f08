package client_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/client"
	"github.com/faultline-go/faultline/problem"
)

// stormServer answers half of all attempts 503 unavailable with
// retry_after_ms before doing anything, and one in ten writes it executes
// with a timeout whose outcome is unknown (the work was done, the answer
// lost). It applies an Idempotency-Key at most once and counts, per
// operation, attempts and executions.
type stormServer struct {
	mu         sync.Mutex
	rng        *rand.Rand
	attempts   map[string]int
	executions map[string]int
	applied    map[string]bool
}

func (s *stormServer) handle(w http.ResponseWriter, r *http.Request) error {
	op := r.Header.Get("X-Test-Op")
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts[op]++
	roll := s.rng.Float64()
	if roll < 0.5 {
		return problem.New(problem.Unavailable).WithRetryAfter(time.Millisecond).WithOutcome(problem.OutcomeNotStarted)
	}
	if r.Method == http.MethodGet {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	if key != "" && s.applied[key] {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	s.executions[op]++
	if key != "" {
		s.applied[key] = true
	}
	if roll < 0.6 {
		// ForRequest: outcome unknown, retryable only with a key.
		return problem.New(problem.Timeout).ForRequest(r)
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

func TestStorm(t *testing.T) {
	const (
		clients     = 32
		opsEach     = 24
		maxAttempts = 4
	)
	s := &stormServer{rng: rand.New(rand.NewPCG(1, 2)), attempts: map[string]int{}, executions: map[string]int{}, applied: map[string]bool{}}
	srv := kitServer(t, s.handle)
	base := &http.Transport{MaxIdleConnsPerHost: clients}
	defer base.CloseIdleConnections()

	var mu sync.Mutex
	reports := map[string]client.OperationReport{}
	observer := client.Observer{Operation: func(o client.OperationReport) {
		mu.Lock()
		defer mu.Unlock()
		reports[o.Method+" "+o.OperationID] = o
	}}
	pol := client.Policy{MaxAttempts: maxAttempts, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	keyed := client.NewTransport(base, client.WithPolicy(pol), client.WithIdempotencyKeys(), client.WithObserver(observer), client.WithLogger(quiet))
	unkeyed := client.NewTransport(base, client.WithPolicy(pol), client.WithObserver(observer), client.WithLogger(quiet))

	type result struct {
		op, kind string
		status   int
	}
	results := make(chan result, clients*opsEach)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range opsEach {
				op := fmt.Sprintf("c%d-op%d", c, i)
				kind := [...]string{"GET", "POST", "POST+key"}[i%3]
				rt := http.RoundTripper(unkeyed)
				method, body := "POST", strings.NewReader(`{"n":1}`)
				switch kind {
				case "GET":
					method, body = "GET", nil
				case "POST+key":
					rt = keyed
				}
				req, _ := http.NewRequest(method, srv.URL, nil)
				if body != nil {
					req, _ = http.NewRequest(method, srv.URL, body)
				}
				req.Header.Set("X-Test-Op", op)
				res, err := rt.RoundTrip(req)
				if err != nil {
					t.Errorf("%s: %v", op, err)
					continue
				}
				res.Body.Close()
				results <- result{op: op, kind: kind, status: res.StatusCode}
			}
		})
	}
	wg.Wait()
	close(results)

	s.mu.Lock()
	defer s.mu.Unlock()
	total, verified := 0, 0
	for r := range results {
		n := s.attempts[r.op]
		total += n
		if n < 1 || n > maxAttempts {
			t.Errorf("%s (%s): %d attempts, the maximum is %d", r.op, r.kind, n, maxAttempts)
		}
		if r.kind != "GET" && s.executions[r.op] > 1 {
			t.Errorf("%s (%s): executed %d times", r.op, r.kind, s.executions[r.op])
		}
		if r.kind == "POST" && r.status == 503 && s.executions[r.op] == 1 {
			verified++
		}
	}
	if len(reports) != clients*opsEach {
		t.Errorf("%d operation reports for %d operations", len(reports), clients*opsEach)
	}
	for _, o := range reports {
		if o.Attempts > maxAttempts {
			t.Errorf("operation %s reported %d attempts", o.OperationID, o.Attempts)
		}
		if o.Method == "POST" && o.Code == "timeout" && o.Decision.Verdict != client.Verify && o.Decision.Verdict != client.Stop {
			t.Errorf("timed-out write ended with %s", o.Decision.Verdict)
		}
	}
	// The storm must have stormed, or the assertions above prove nothing.
	ops := clients * opsEach
	if total < ops*3/2 || verified == 0 {
		t.Errorf("%d attempts for %d operations, %d unkeyed writes left to verify: the storm did not exercise retries", total, ops, verified)
	}
	t.Logf("%d operations, %d attempts, %d unkeyed writes left to verify", ops, total, verified)
}
