package problem_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

// A problem's record reads the same, attribute by attribute, through a
// plain handler, through sanitize's log handler (which passes the
// attributes problem marks as sanitized without a second look) and through
// slog's text handler: members in the same order, the error chain redacted
// once, an unusual method and a client's path as the log tier makes them.
func TestLogRecordSameThroughAnyHandler(t *testing.T) {
	noTime := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	write := func(h slog.Handler, method, path string, err error) {
		wr := problem.NewWriter(problem.WithLogger(slog.New(h)))
		r := httptest.NewRequest(method, "http://x"+path, nil)
		_ = wr.Write(httptest.NewRecorder(), r, wr.FromError(err))
	}
	for _, c := range []struct {
		method, path string
		err          error
		want         string
	}{
		{http.MethodGet, "/fail", errors.New("dial postgres://app:hunter2@10.1.2.3:5432/orders: connection refused"),
			`{"level":"ERROR","msg":"problem","code":"internal","status":500,"cause":"internal","action":"retry","method":"GET","path":"/fail","correlation_id":"","error":"dial postgres://[redacted]@10.1.2.3:5432/orders: connection refused"}` + "\n"},
		{"PURGE", "/t/ghp_abcdefghijklmnopqrstuvwxyz0123456789", problem.New(problem.NotFound),
			`{"level":"INFO","msg":"problem","code":"not_found","status":404,"cause":"request","action":"fix_request","method":"PURGE","path":"/t/[redacted]","correlation_id":""}` + "\n"},
	} {
		var plain, through, text bytes.Buffer
		write(slog.NewJSONHandler(&plain, noTime), c.method, c.path, c.err)
		write(sanitize.NewLogHandler(slog.NewJSONHandler(&through, noTime)), c.method, c.path, c.err)
		if plain.String() != c.want || through.String() != c.want {
			t.Errorf("%s %s:\nplain   %s\nthrough %s\nwant    %s", c.method, c.path, plain.String(), through.String(), c.want)
		}
		var textPlain bytes.Buffer
		write(slog.NewTextHandler(&text, noTime), c.method, c.path, c.err)
		write(sanitize.NewLogHandler(slog.NewTextHandler(&textPlain, noTime)), c.method, c.path, c.err)
		if text.String() != textPlain.String() || bytes.Contains(text.Bytes(), []byte("0x")) {
			t.Errorf("text handler: %s\nthrough sanitize: %s", text.String(), textPlain.String())
		}
	}
}

// Every attribute problem adds passes the log tier where it is made, even
// the few taken as they come (the method, an unregistered code, the
// correlation ID), so no secret of theirs reaches the log through any
// handler; those a problem's builder added with WithLogAttrs are still
// scanned by sanitize's log handler.
func TestLogRecordAttributesFromEverySourcePassTheLogTier(t *testing.T) {
	const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	for name, h := range map[string]func(*bytes.Buffer) slog.Handler{
		"json":     func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
		"sanitize": func(b *bytes.Buffer) slog.Handler { return sanitize.NewLogHandler(slog.NewJSONHandler(b, nil)) },
	} {
		var buf bytes.Buffer
		wr := problem.NewWriter(problem.WithLogger(slog.New(h(&buf))))
		r := httptest.NewRequest(token, "/x", nil)
		p := peerDoc(map[string]any{"code": "conflict", "correlation_id": token}).WithLogAttrs(slog.String("upstream", "Authorization: Bearer "+token))
		_ = wr.Write(httptest.NewRecorder(), r, p)
		_ = wr.Write(httptest.NewRecorder(), r, peerDoc(map[string]any{"code": token, "status": 418}))
		logged := buf.String()
		if name == "json" {
			// The builder's own attribute is the handler's to redact.
			logged = strings.ReplaceAll(logged, `"upstream":"Authorization: Bearer `+token, "")
		}
		if strings.Contains(logged, "abcdefghijklmnopqrstuvwxyz0123456789") {
			t.Errorf("%s: a token reached the log:\n%s", name, buf.String())
		}
		if name == "sanitize" && !strings.Contains(logged, `"upstream":"Authorization: [redacted]"`) {
			t.Errorf("%s: the builder's attribute is missing or not redacted:\n%s", name, buf.String())
		}
	}
}

// opaque hides the handler it wraps, so the writer cannot know how it
// treats attributes added with WithAttrs and puts every attribute in the
// record.
type opaque struct{ next slog.Handler }

func (o opaque) Enabled(ctx context.Context, l slog.Level) bool  { return o.next.Enabled(ctx, l) }
func (o opaque) Handle(ctx context.Context, r slog.Record) error { return o.next.Handle(ctx, r) }
func (o opaque) WithAttrs(as []slog.Attr) slog.Handler           { return opaque{o.next.WithAttrs(as)} }
func (o opaque) WithGroup(name string) slog.Handler              { return opaque{o.next.WithGroup(name)} }

// collector keeps the attributes of the records it is handed and ignores
// WithAttrs, as many test handlers do.
type collector struct{ attrs *[]string }

func (c collector) Enabled(context.Context, slog.Level) bool { return true }
func (c collector) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool { *c.attrs = append(*c.attrs, a.Key+"="+a.Value.String()); return true })
	return nil
}
func (c collector) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c collector) WithGroup(string) slog.Handler      { return c }

// The writer adds a code's constant attributes to slog's own handlers (and
// the kit's wrappers around them) once with WithAttrs; what they write is
// the same, byte for byte, as when every attribute is in the record, with
// groups, logger attributes and ReplaceAttr too; a handler the writer does
// not know is handed every attribute in the record.
func TestLogRecordSameWithTheCodesAttributesAddedOnce(t *testing.T) {
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		switch {
		case a.Key == slog.TimeKey && len(groups) == 0:
			return slog.Attr{}
		case a.Key == "cause":
			a.Value = slog.StringValue("cause:" + a.Value.String())
		}
		return a
	}}
	shapes := map[string]func(*slog.Logger) *slog.Logger{
		"plain": func(l *slog.Logger) *slog.Logger { return l },
		"with":  func(l *slog.Logger) *slog.Logger { return l.With("service", "orders") },
		"group": func(l *slog.Logger) *slog.Logger { return l.WithGroup("req") },
		"with+group": func(l *slog.Logger) *slog.Logger {
			return l.With("service", "orders").WithGroup("req").With("shard", 3)
		},
	}
	for shapeName, shape := range shapes {
		for kind, newBase := range map[string]func(*bytes.Buffer) slog.Handler{
			"json": func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, noTime) },
			"text": func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, noTime) },
		} {
			out := func(wrap func(slog.Handler) slog.Handler) string {
				var buf bytes.Buffer
				wr := problem.NewWriter(problem.WithLogger(shape(slog.New(wrap(newBase(&buf))))))
				// The second record of a code goes through the handler with
				// the code's attributes, the third of a route through the
				// one with the route's too.
				for range 3 {
					for _, route := range []struct{ method, target string }{
						{http.MethodGet, "/v1/orders/7"},
						{http.MethodPost, "/v1/orders/7"},
						{http.MethodGet, "/v1/keys/ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
						{http.MethodDelete, "/v1/a%0Ab%E2%80%AEc/%22q%22"},
						{"PURGE", "/v1/orders/7"},
					} {
						r := httptest.NewRequest(route.method, route.target, nil)
						r = r.WithContext(correlation.WithID(r.Context(), "req-0123456789"))
						_ = wr.Write(httptest.NewRecorder(), r, wr.FromError(errors.New("dial tcp 10.0.0.7:5432: token=s3cr3t refused")))
						_ = wr.Write(httptest.NewRecorder(), r, problem.New(problem.NotFound))
					}
				}
				return buf.String()
			}
			for name, wrap := range map[string]func(slog.Handler) slog.Handler{
				"bare":                 func(h slog.Handler) slog.Handler { return h },
				"sanitize":             sanitize.NewLogHandler,
				"correlation+sanitize": func(h slog.Handler) slog.Handler { return correlation.NewHandler(sanitize.NewLogHandler(h)) },
			} {
				want := out(func(h slog.Handler) slog.Handler { return wrap(opaque{h}) })
				if !strings.Contains(want, "internal") || !strings.Contains(want, "not_found") || strings.Contains(want, "s3cr3t") ||
					strings.Contains(want, "ghp_") || !strings.Contains(want, "PURGE") {
					t.Fatalf("%s %s through %s: unexpected reference output:\n%s", shapeName, kind, name, want)
				}
				if got := out(wrap); got != want {
					t.Errorf("%s %s through %s:\n got %s\nwant %s", shapeName, kind, name, got, want)
				}
			}
		}
	}
	var seen []string
	wr := problem.NewWriter(problem.WithLogger(slog.New(collector{&seen})))
	for range 3 {
		_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), problem.New(problem.NotFound))
	}
	if got := strings.Join(seen, " "); strings.Count(got, "code=not_found status=404 cause=request action=fix_request method=GET path=/x") != 3 {
		t.Errorf("a handler that collects records saw %s", got)
	}
}

// A writer without a logger of its own follows slog.Default as it changes:
// the code's attributes made once for one handler never reach another.
func TestLogRecordFollowsTheDefaultLogger(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	wr := problem.NewWriter()
	var first, second bytes.Buffer
	for _, buf := range []*bytes.Buffer{&first, &second} {
		slog.SetDefault(slog.New(slog.NewJSONHandler(buf, nil)))
		for range 3 {
			_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), problem.New(problem.NotFound))
		}
	}
	for name, buf := range map[string]*bytes.Buffer{"first": &first, "second": &second} {
		if n := strings.Count(buf.String(), `"code":"not_found","status":404,"cause":"request","action":"fix_request","method":"GET","path":"/x"`); n != 3 {
			t.Errorf("%s default logger got %d records with the code's attributes:\n%s", name, n, buf.String())
		}
	}
}
