package correlation

import (
	"context"
	"github.com/faultline-go/faultline/internal/corrstate"
	"testing"
	"time"
)

func TestContextAccessors(t *testing.T) {
	ctx := context.Background()
	if ID(ctx) != "" || traceID(ctx) != "" {
		t.Fatal("empty context reports an ID")
	}
	ctx = WithID(ctx, "job-1234")
	if got := ID(ctx); got != "job-1234" {
		t.Fatalf("ID = %q", got)
	}
	ctx = WithID(ctx, "job-5678")
	if got := ID(ctx); got != "job-5678" {
		t.Fatalf("ID after re-keying = %q", got)
	}
}

func TestWithIDKeepsTrace(t *testing.T) {
	parent := &idContext{Context: context.Background(), req: corrstate.Request{ID: "a", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}}
	ctx := WithID(parent, "job-1234")
	if got := traceID(ctx); got != parent.req.TraceID {
		t.Fatalf("trace ID %q", got)
	}
}

type otherKey struct{}

func TestContextDelegates(t *testing.T) {
	base := context.WithValue(context.Background(), otherKey{}, "v")
	base, cancel := context.WithCancelCause(base)
	ctx := WithID(base, "job-1234")
	if ctx.Value(otherKey{}) != "v" {
		t.Fatal("parent values lost")
	}
	child, stop := context.WithTimeout(ctx, time.Hour)
	defer stop()
	if ID(child) != "job-1234" {
		t.Fatal("ID lost through a derived context")
	}
	cause := context.Canceled
	cancel(cause)
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation did not propagate through the ID context")
	}
	if context.Cause(child) != cause {
		t.Fatalf("Cause = %v", context.Cause(child))
	}
}

func TestWithIDNilContext(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	var nilCtx context.Context
	WithID(nilCtx, "job-1234")
}

// traceID is the trace ID ctx carries, as NewHandler logs it.
func traceID(ctx context.Context) string {
	if v := corrstate.From(ctx); v != nil {
		return v.TraceID
	}
	return ""
}
