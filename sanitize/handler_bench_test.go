package sanitize_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/faultline-go/faultline/sanitize"
)

// BenchmarkLogHandler is the sanitize handler's share of the error route:
// the record problem.Writer logs for a failed request (its error already
// sanitized and marked by LogAttr), checked and passed to a handler that
// drops it, so only the log tier's own work is measured.
func BenchmarkLogHandler(b *testing.B) {
	r := slog.NewRecord(time.Now(), slog.LevelError, "problem", 0)
	r.AddAttrs(
		slog.String("code", "internal"),
		slog.Int("status", 500),
		slog.String("cause", "internal"),
		slog.String("action", "verify"),
		slog.String("correlation_id", "0193b1c2-7e4f-7a3b-9c1d-2e3f4a5b6c7d"),
	)
	r.AddAttrs(
		slog.String("method", "GET"),
		slog.String("path", "/v1/orders/ord_9"),
		sanitize.LogAttr("error", `load order: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders: connection refused`),
	)
	h := sanitize.NewLogHandler(discardAll{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Handle(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
}

// discardAll is enabled for every level, unlike slog.DiscardHandler, so
// the sanitize handler does all its work.
type discardAll struct{}

func (discardAll) Enabled(context.Context, slog.Level) bool  { return true }
func (discardAll) Handle(context.Context, slog.Record) error { return nil }
func (d discardAll) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discardAll) WithGroup(string) slog.Handler           { return d }
