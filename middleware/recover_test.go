package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
)

func TestRecoverBeforeFirstWrite(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /boom": func(w http.ResponseWriter, r *http.Request) { panic("secret-panic-value") },
		})
		srv := k.serve(t, h)
		r := get(t, srv.URL+"/boom")
		wantProblem(t, r, 500, "internal", map[string]any{
			"action": "retry", "cause": "internal", "outcome": "not_committed", "retryable": true,
		})
		if contains(r.body, "secret-panic-value") {
			t.Fatalf("panic value leaked: %s", r.body)
		}
		recs := k.logs.records(t)
		if len(recs) != 1 {
			t.Fatalf("%d log records, want 1: %v", len(recs), recs)
		}
		rec := recs[0]
		if rec["panic"] != "secret-panic-value" || rec["correlation_id"] != r.Header.Get("X-Request-Id") {
			t.Fatalf("log record %v", rec)
		}
		wantStackFrames(t, rec["stack"])
	})
}

func TestRecoverPOSTOutcomeUnknown(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("write failed halfway")
	})))
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	wantProblem(t, do(t, req), 500, "internal", map[string]any{"outcome": "unknown", "retryable": false})
}

func TestRecoverAfterFirstWriteAborts(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /half": func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte("part one;"))
				http.NewResponseController(w).Flush()
				panic("after the first write")
			},
		})
		srv := k.serve(t, h)
		resp, err := http.Get(srv.URL + "/half")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		b, err := io.ReadAll(resp.Body)
		if err == nil {
			t.Fatalf("client read a clean response %q; want a truncated one", b)
		}
		if string(b) != "part one;" {
			t.Fatalf("body %q", b)
		}
		recs := waitRecords(t, k.logs, 1)
		if recs[0]["response_started"] != true || recs[0]["panic"] != "after the first write" {
			t.Fatalf("log record %v", recs[0])
		}
	})
}

// waitRecords waits for the server to log n records: after an aborted
// response the client can finish before the server does.
func waitRecords(t *testing.T, b *syncBuffer, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		recs := b.records(t)
		if len(recs) >= n || time.Now().After(deadline) {
			if len(recs) != n {
				t.Fatalf("%d log records, want %d: %v", len(recs), n, recs)
			}
			return recs
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRecoverErrAbortHandlerRepanicked(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	})))
	resp, err := http.Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("got a response (%d); want the connection aborted", resp.StatusCode)
	}
	if s := k.logs.String(); s != "" {
		t.Fatalf("ErrAbortHandler was logged as a problem: %s", s)
	}
}

func TestRecoverPanicNil(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic(nil)
	})))
	wantProblem(t, get(t, srv.URL), 500, "internal", nil)
	recs := k.logs.records(t)
	if len(recs) != 1 || !containsStr(recs[0]["error"], "nil") {
		t.Fatalf("log %v", recs)
	}
}

// panickingHandler is a log handler that fails, as a broken one in
// production could: the problem writer itself panics.
type panickingHandler struct{ slog.Handler }

func (panickingHandler) Handle(context.Context, slog.Record) error { panic("log handler broke") }

func TestRecoverPanicInsideWriter(t *testing.T) {
	fallback := &syncBuffer{}
	wr := problem.NewWriter(problem.WithLogger(slog.New(panickingHandler{slog.NewJSONHandler(io.Discard, nil)})))
	k := newKit()
	// The writer's own logger is what broke: the report goes to slog's
	// default.
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	slog.SetDefault(slog.New(slog.NewJSONHandler(fallback, nil)))
	srv := k.serve(t, Stack(WithWriter(wr))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("first") })))
	resp, err := http.Get(srv.URL)
	if err == nil {
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr == nil && resp.StatusCode == 200 {
			t.Fatalf("clean 200 %q after the writer panicked", b)
		}
	}
	recs := waitRecords(t, fallback, 1)
	if recs[0]["panic"] != "log handler broke" || recs[0]["code"] != "internal" {
		t.Fatalf("fallback log %v", recs[0])
	}
	// The server survived.
	if _, err := http.Get(srv.URL); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("second request: %v", err)
	}
}

// wantStackFrames checks a logged stack is a list of frames, one per
// element, with the panicking handler among them and nothing that could
// forge a log line.
func wantStackFrames(t *testing.T, v any) {
	t.Helper()
	frames, ok := v.([]any)
	if !ok || len(frames) < 2 {
		t.Fatalf("stack %T %v, want a list of frames", v, v)
	}
	found := false
	for _, f := range frames {
		s, ok := f.(string)
		if !ok || strings.ContainsAny(s, "\r\n") || !framePattern.MatchString(s) {
			t.Fatalf("frame %q", f)
		}
		found = found || strings.Contains(s, "recover_test.go")
	}
	if !found {
		t.Fatalf("the handler's frame is missing: %v", frames)
	}
}

var framePattern = regexp.MustCompile(`^\S+ \(\S+:\d+\)$`)

// The panic's text reaches the log through the log tier even behind a
// plain slog handler: a credential in it is redacted and a huge value is
// cut at sanitize.MaxLogLen, as the error chain is.
func TestRecoverPanicValuePassesTheLogTier(t *testing.T) {
	for name, v := range map[string]any{
		"credential": "pool: dial postgres://app:hunter2-pw@10.1.2.3:5432/orders failed",
		"huge":       strings.Repeat("x", 1<<20),
	} {
		var buf bytes.Buffer
		wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
		h := Stack(WithWriter(wr))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(v) }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, _ := rec["panic"].(string)
		switch name {
		case "credential":
			if strings.Contains(buf.String(), "hunter2-pw") || !strings.Contains(got, "10.1.2.3") {
				t.Errorf("panic logged as %q", got)
			}
		case "huge":
			if len(got) > sanitize.MaxLogLen || buf.Len() > 3*sanitize.MaxLogLen {
				t.Errorf("a 1 MiB panic logged %d bytes (panic attribute %d)", buf.Len(), len(got))
			}
		}
	}
}
