package logmark

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

type holder struct {
	context.Context
	slot Slot
}

func (h *holder) MarkSlot(Key) *Slot { return &h.slot }

func record(msg string, sec int64) slog.Record {
	r := slog.NewRecord(time.Unix(sec, 0), slog.LevelError, msg, 1)
	r.AddAttrs(slog.String("a", "1"), slog.String("b", "2"))
	return r
}

// The first mark made with a holder as its parent lives in the holder's
// slot; the next ones are marks of their own, and the first keeps vouching
// for its record alone.
func TestSlotMarksOneRecord(t *testing.T) {
	h := &holder{Context: context.Background()}
	r1, r2 := record("one", 1), record("two", 2)
	c1 := With(h, &r1, 2)
	if c1 != context.Context(&h.slot.m) {
		t.Fatal("first mark not in the holder's slot")
	}
	c2 := With(h, &r2, 1)
	if c2 == c1 {
		t.Fatal("second mark reused the slot")
	}
	if n, ok := Clean(c1, &r1); !ok || n != 2 {
		t.Errorf("first mark: %d %v", n, ok)
	}
	if _, ok := Clean(c1, &r2); ok {
		t.Error("first mark vouches for the second record")
	}
	if n, ok := Clean(c2, &r2); !ok || n != 1 {
		t.Errorf("second mark: %d %v", n, ok)
	}
	if c1.Value("x") != nil || c2.(*marked).Context != context.Context(h) {
		t.Error("marks do not keep the holder as their parent")
	}
}

// Concurrent marks on one holder (a timeout's record and the handler's):
// one takes the slot, each vouches for its own record only.
func TestSlotConcurrent(t *testing.T) {
	h := &holder{Context: context.Background()}
	const n = 16
	ctxs := make([]context.Context, n)
	recs := make([]slog.Record, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i] = record("r", int64(i))
			ctxs[i] = With(h, &recs[i], 2)
		}()
	}
	wg.Wait()
	inSlot := 0
	for i := range n {
		if ctxs[i] == context.Context(&h.slot.m) {
			inSlot++
		}
		for j := range n {
			if _, ok := Clean(ctxs[i], &recs[j]); ok != (i == j) {
				t.Fatalf("mark %d on record %d: %v", i, j, ok)
			}
		}
	}
	if inSlot != 1 {
		t.Fatalf("%d marks in the slot, want 1", inSlot)
	}
}
