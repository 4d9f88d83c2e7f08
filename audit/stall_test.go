package audit_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/audit"
)

// stuckSink stands for a durable store whose write never returns and never
// looks at its context, like a file whose fsync hangs on a dead disk.
type stuckSink struct {
	release chan struct{}
	mu      sync.Mutex
	calls   int
}

func (s *stuckSink) Write(context.Context, audit.Event) error {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	<-s.release
	return nil
}

// TestStrictRejectsWhenTheSinkHangs: WithSinkTimeout bounds the wait even
// for a sink that ignores its context; the request is rejected unrun
// instead of hanging with the sink.
func TestStrictRejectsWhenTheSinkHangs(t *testing.T) {
	sink := &stuckSink{release: make(chan struct{})}
	defer close(sink.release)
	a := newApp(t, sink, audit.Strict(), audit.WithSinkTimeout(20*time.Millisecond))
	resp, body := a.post(t, "o1")
	if resp.StatusCode != 503 || !strings.Contains(string(body), `"code":"audit_unavailable"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	a.mu.Lock()
	ran := len(a.executed)
	a.mu.Unlock()
	if ran != 0 {
		t.Fatal("the handler ran although its attempt was never recorded")
	}
}
