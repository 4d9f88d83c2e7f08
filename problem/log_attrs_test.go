package problem_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
		_ = wr.WriteError(httptest.NewRecorder(), r, err)
	}
	for _, c := range []struct {
		method, path string
		err          error
		want         string
	}{
		{http.MethodGet, "/fail", errors.New("dial postgres://app:hunter2@10.1.2.3:5432/orders: connection refused"),
			`{"level":"ERROR","msg":"problem","code":"internal","status":500,"cause":"internal","action":"retry","correlation_id":"","method":"GET","path":"/fail","error":"dial postgres://[redacted]@10.1.2.3:5432/orders: connection refused"}` + "\n"},
		{"PURGE", "/t/ghp_abcdefghijklmnopqrstuvwxyz0123456789", problem.New(problem.NotFound),
			`{"level":"INFO","msg":"problem","code":"not_found","status":404,"cause":"request","action":"fix_request","correlation_id":"","method":"PURGE","path":"/t/[redacted]"}` + "\n"},
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
		p := problem.New(problem.Conflict).WithLogAttrs(slog.String("upstream", "Authorization: Bearer "+token))
		p.CorrelationID = token
		_ = wr.Write(httptest.NewRecorder(), r, p)
		_ = wr.Write(httptest.NewRecorder(), r, &problem.Problem{Code: token, Status: 418})
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
