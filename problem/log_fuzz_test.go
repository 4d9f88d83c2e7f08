package problem_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// unmarked hands records on with a context of its own, which takes away
// the writer's mark (internal/logmark): sanitize's handler then scans every
// attribute again.
type unmarked struct{ next slog.Handler }

type unmarkedKey struct{}

func (u unmarked) Enabled(ctx context.Context, l slog.Level) bool { return u.next.Enabled(ctx, l) }
func (u unmarked) Handle(ctx context.Context, r slog.Record) error {
	return u.next.Handle(context.WithValue(ctx, unmarkedKey{}, true), r)
}
func (u unmarked) WithAttrs(as []slog.Attr) slog.Handler { return unmarked{u.next.WithAttrs(as)} }
func (u unmarked) WithGroup(name string) slog.Handler    { return unmarked{u.next.WithGroup(name)} }

// The shortcuts of a problem's log record (the code's and the route's
// attributes added once with WithAttrs, the mark that spares sanitize's
// handler a second scan) change nothing the log says, whatever the method,
// path, error text and correlation ID: the record through the recommended
// handlers reads byte for byte as through the same handlers made to take
// no shortcut.
func FuzzLogRecordShortcuts(f *testing.F) {
	f.Add("GET", "/v1/orders/7", "dial postgres://app:hunter2@10.1.2.3:5432/orders: connection refused", "req-0123456789")
	f.Add("PURGE", "/t/ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token=abc\nforged line \u202e", "01937e4a-8b2c-7d3e-9f10-a1b2c3d4e5f6")
	f.Add("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "/a b/%zz", "Authorization: Bearer x.y.z", "")
	f.Add("POST", "", "\xff\xfe password='a b' \\n next", "AKIAIOSFODNN7EXAMPLE")
	f.Fuzz(func(t *testing.T, method, path, text, id string) {
		noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		}}
		out := func(wrap func(slog.Handler) slog.Handler) string {
			var buf bytes.Buffer
			h := correlation.NewHandler(wrap(sanitize.NewLogHandler(slog.NewJSONHandler(&buf, noTime))))
			wr := problem.NewWriter(problem.WithLogger(slog.New(h)))
			ctx := correlation.WithID(context.Background(), id)
			// The second error text and route are remembered, the third
			// record goes through the handler with the route's attributes.
			for range 3 {
				r := (&http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{}}).WithContext(ctx)
				_ = wr.Write(httptest.NewRecorder(), r, wr.FromError(errors.New(text)))
				_ = wr.Write(httptest.NewRecorder(), r, problem.New(problem.Conflict))
			}
			return buf.String()
		}
		shortcut := out(func(h slog.Handler) slog.Handler { return h })
		full := out(func(h slog.Handler) slog.Handler { return unmarked{h} })
		if shortcut != full {
			t.Fatalf("shortcut:\n%s\nfull scan:\n%s", shortcut, full)
		}
	})
}
