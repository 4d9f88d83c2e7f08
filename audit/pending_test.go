package audit_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/audit"
)

// TestAHungSinkHoldsBoundedResources: a sink that never returns (a dead
// disk under fsync) must not cost a goroutine per request for as long as
// it hangs. Each write the timeout gave up on still waits on the sink, so
// without a bound a service rejecting thousands of requests a second
// piles up goroutines and events until it runs out of memory; with one,
// it keeps rejecting at no cost.
func TestAHungSinkHoldsBoundedResources(t *testing.T) {
	for _, strict := range []bool{true, false} {
		sink := &stuckSink{release: make(chan struct{})}
		opts := []audit.Option{audit.WithSinkTimeout(2 * time.Millisecond)}
		if strict {
			opts = append(opts, audit.Strict())
		}
		a := newApp(t, sink, opts...)
		before := settledGoroutines()
		const requests = 3000
		var wg sync.WaitGroup
		work := make(chan int)
		for range 32 {
			wg.Go(func() {
				for range work {
					id := "o1"
					if !strict {
						id = "denied" // a failure: its event goes to the sink
					}
					resp, _ := a.post(t, id)
					if want := map[bool]int{true: 503, false: 403}[strict]; resp.StatusCode != want {
						t.Errorf("status %d, want %d", resp.StatusCode, want)
					}
				}
			})
		}
		for i := range requests {
			work <- i
		}
		close(work)
		wg.Wait()
		grew := runtime.NumGoroutine() - before
		sink.mu.Lock()
		calls := sink.calls
		sink.mu.Unlock()
		close(sink.release)
		if grew > requests/2 || calls > requests/2 {
			t.Errorf("strict=%v: %d requests left %d goroutines and %d writes waiting on the hung sink", strict, requests, grew, calls)
		}
	}
}

// settledGoroutines waits for goroutines still ending (a previous round's
// writes released from their sink) and counts the rest.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 100 {
		time.Sleep(10 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}
