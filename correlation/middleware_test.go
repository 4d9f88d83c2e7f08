package correlation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/faultline-go/faultline/internal/corrstate"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// echo reports what the handler saw in the context, so tests can check that
// the context and the response header agree.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%s\n%s", ID(r.Context()), traceID(r.Context()))
})

type seen struct{ id, trace string }

func readSeen(t *testing.T, resp *http.Response) seen {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	id, trace, _ := strings.Cut(string(b), "\n")
	return seen{id, trace}
}

// rawGet sends header lines verbatim over TCP, because net/http's client
// refuses to write the hostile values these tests need.
func rawGet(t *testing.T, srv *httptest.Server, path string, headerLines ...string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	var req bytes.Buffer
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: test\r\nConnection: close\r\n", path)
	for _, l := range headerLines {
		req.WriteString(l + "\r\n")
	}
	req.WriteString("\r\n")
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func clientGet(t *testing.T, url string, hdr map[string][]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range hdr {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// logSink captures the middleware's warnings as decoded JSON records.
type logSink struct{ buf bytes.Buffer }

func (s *logSink) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(&s.buf, nil)) }

type sinkLogs struct {
	defaultEnv
	l *slog.Logger
}

func (s sinkLogs) Logger() *slog.Logger { return s.l }

// asDefault makes the sink slog's default logger, where Middleware reports
// rejected IDs, for the rest of the test.
func (s *logSink) asDefault(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	slog.SetDefault(s.logger())
}

func (s *logSink) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(s.buf.Bytes()))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("log is not JSON lines: %v\n%s", err, s.buf.String())
		}
		out = append(out, m)
	}
	return out
}

// expectGenerated checks that the ID in the response header was generated
// by us (a UUIDv7), matches the context, and is not the rejected value.
func expectGenerated(t *testing.T, resp *http.Response, rejected string) {
	t.Helper()
	got := resp.Header.Get(DefaultHeader)
	checkUUIDv7(t, got)
	if s := readSeen(t, resp); s.id != got {
		t.Fatalf("context ID %q, response header %q", s.id, got)
	}
	if rejected != "" && strings.Contains(got, rejected) {
		t.Fatalf("rejected value echoed: %q", got)
	}
}

func expectEchoed(t *testing.T, resp *http.Response, want string) {
	t.Helper()
	if got := resp.Header.Values(DefaultHeader); len(got) != 1 || got[0] != want {
		t.Fatalf("response %s = %q, want [%q]", DefaultHeader, got, want)
	}
	if s := readSeen(t, resp); s.id != want {
		t.Fatalf("context ID %q, want %q", s.id, want)
	}
}

func newServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestMiddlewareOverHTTP(t *testing.T) {
	var sink logSink
	sink.asDefault(t)
	srv := newServer(t, Middleware()(echo))
	valid8, valid128 := "abcd1234", strings.Repeat("Ab0._~+/=-", 12)+"abcdefgh"

	t.Run("valid echoed", func(t *testing.T) {
		expectEchoed(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {"req-0001.abc"}}), "req-0001.abc")
	})
	t.Run("missing generated", func(t *testing.T) {
		expectGenerated(t, clientGet(t, srv.URL, nil), "")
	})
	t.Run("8 bytes accepted", func(t *testing.T) {
		expectEchoed(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {valid8}}), valid8)
	})
	t.Run("7 bytes rejected", func(t *testing.T) {
		expectGenerated(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {"abcd123"}}), "abcd123")
	})
	t.Run("128 bytes accepted", func(t *testing.T) {
		if len(valid128) != 128 {
			t.Fatal("bad fixture")
		}
		expectEchoed(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {valid128}}), valid128)
	})
	t.Run("129 bytes rejected", func(t *testing.T) {
		v := valid128 + "x"
		expectGenerated(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {v}}), v)
	})
	t.Run("10 KiB rejected", func(t *testing.T) {
		v := strings.Repeat("a", 10<<10)
		expectGenerated(t, clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {v}}), v[:200])
	})
	t.Run("X-Correlation-Id used when X-Request-Id absent", func(t *testing.T) {
		expectEchoed(t, clientGet(t, srv.URL, map[string][]string{"X-Correlation-Id": {"corr-12345"}}), "corr-12345")
	})
	t.Run("both headers agreeing accepted", func(t *testing.T) {
		expectEchoed(t, clientGet(t, srv.URL, map[string][]string{
			"X-Request-Id": {"same-12345"}, "X-Correlation-Id": {"same-12345"},
		}), "same-12345")
	})
	t.Run("two differing headers rejected", func(t *testing.T) {
		expectGenerated(t, clientGet(t, srv.URL, map[string][]string{
			"X-Request-Id": {"first-12345"}, "X-Correlation-Id": {"other-12345"},
		}), "")
	})
	t.Run("valid then invalid header rejected", func(t *testing.T) {
		expectGenerated(t, clientGet(t, srv.URL, map[string][]string{
			"X-Request-Id": {"first-12345"}, "X-Correlation-Id": {"bad id"},
		}), "")
	})
	t.Run("differing values of one header rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id: first-12345", "X-Request-Id: other-12345"), "")
	})
	t.Run("repeated identical values accepted", func(t *testing.T) {
		expectEchoed(t, rawGet(t, srv, "/", "X-Request-Id: first-12345", "X-Request-Id: first-12345"), "first-12345")
	})
	t.Run("comma-joined values rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id: first-12345, other-12345"), "first")
	})
	t.Run("empty value rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id:"), "")
	})
	t.Run("CRLF continuation rejected and not echoed", func(t *testing.T) {
		// An obsolete line fold is the only way CRLF reaches a Go handler
		// from the wire; net/textproto joins it with a space.
		resp := rawGet(t, srv, "/", "X-Request-Id: abcdefgh", " Set-Cookie: pwned=1")
		if resp.Header.Get("Set-Cookie") != "" {
			t.Fatal("header injected")
		}
		expectGenerated(t, resp, "Set-Cookie")
	})
	t.Run("non-ASCII rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id: abcd\xc3\xa9fgh"), "\xc3\xa9")
	})
	t.Run("invalid UTF-8 rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id: abcd\xff\xfefgh"), "\xff")
	})
	t.Run("tab rejected", func(t *testing.T) {
		expectGenerated(t, rawGet(t, srv, "/", "X-Request-Id: abcd\tefgh"), "\t")
	})
	t.Run("NUL stopped before the middleware", func(t *testing.T) {
		// net/http answers 400 itself; the handler-level test below covers
		// what the middleware does if a NUL ever gets through.
		resp := rawGet(t, srv, "/", "X-Request-Id: abcd\x00efgh")
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if strings.Contains(resp.Header.Get(DefaultHeader), "\x00") {
			t.Fatal("NUL echoed")
		}
	})
}

func TestMiddlewareHostileValuesInProcess(t *testing.T) {
	// Values the wire cannot carry to a Go server, for handlers reached by
	// other means (HTTP/2 and HTTP/3 stacks, proxies in the same process,
	// tests).
	for _, v := range []string{
		"abcdefgh\r\nSet-Cookie: pwned=1",
		"abcdefgh\nx",
		"abcdefgh\r",
		"abcd\x00efgh",
		"abcd\x7fefgh",
		"\x00\x00\x00\x00\x00\x00\x00\x00",
	} {
		t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
			var sink logSink
			sink.asDefault(t)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header[DefaultHeader] = []string{v}
			rec := httptest.NewRecorder()
			Middleware()(echo).ServeHTTP(rec, req)
			expectGenerated(t, rec.Result(), v)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: a bad ID must never fail the request", rec.Code)
			}
			if bytes.ContainsAny(sink.buf.Bytes(), "\r\x00\x7f") || bytes.Count(sink.buf.Bytes(), []byte("\n")) != 1 {
				t.Fatalf("raw bytes reached the log: %q", sink.buf.String())
			}
		})
	}
}

func TestMiddlewareLogsRejectionEscapedAndTruncated(t *testing.T) {
	var sink logSink
	sink.asDefault(t)
	srv := newServer(t, Middleware()(echo))
	hostile := "évil\t" + strings.Repeat("A", 10<<10)
	resp := rawGet(t, srv, "/", "X-Request-Id: "+hostile)
	newID := resp.Header.Get(DefaultHeader)
	expectGenerated(t, resp, "évil")

	recs := sink.records(t)
	if len(recs) != 1 {
		t.Fatalf("got %d log records, want 1:\n%s", len(recs), sink.buf.String())
	}
	rec := recs[0]
	if rec["level"] != "WARN" {
		t.Errorf("level = %v", rec["level"])
	}
	if rec[AttrKey] != newID {
		t.Errorf("%s = %v, want the replacement %q", AttrKey, rec[AttrKey], newID)
	}
	if rec["header"] != DefaultHeader || rec["reason"] != "too_long" {
		t.Errorf("header/reason = %v/%v", rec["header"], rec["reason"])
	}
	if rec["length"] != float64(len(hostile)) || rec["truncated"] != true {
		t.Errorf("length/truncated = %v/%v", rec["length"], rec["truncated"])
	}
	// At most logValueMax bytes of the escaped value reach the log.
	wantValue := `\u00e9vil\t` + strings.Repeat("A", logValueMax-len(`\u00e9vil\t`))
	if rec["value"] != wantValue {
		t.Errorf("value = %q, want %q", rec["value"], wantValue)
	}
	if strings.Contains(sink.buf.String(), "é") || sink.buf.Len() > 1024 {
		t.Errorf("log line carries raw or untruncated input: %d bytes", sink.buf.Len())
	}
}

func TestMiddlewareLogReasons(t *testing.T) {
	cases := []struct {
		name   string
		header map[string][]string
		want   map[string]any
	}{
		{"short", map[string][]string{"X-Request-Id": {"abc"}},
			map[string]any{"reason": "too_short", "value": "abc", "length": 3.0, "truncated": false}},
		{"empty", map[string][]string{"X-Request-Id": {""}},
			map[string]any{"reason": "empty", "value": "", "length": 0.0}},
		{"control", map[string][]string{"X-Request-Id": {"abcd\r\nefgh"}},
			map[string]any{"reason": "control_char", "value": `abcd\r\nefgh`}},
		{"non-ascii", map[string][]string{"X-Request-Id": {"abcd\xffefgh"}},
			map[string]any{"reason": "non_ascii", "value": `abcd\xffefgh`}},
		{"conflict", map[string][]string{"X-Request-Id": {"first-12345"}, "X-Correlation-Id": {"other-12345"}},
			map[string]any{"reason": "conflicting", "header": "X-Correlation-Id", "value": "other-12345"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sink logSink
			sink.asDefault(t)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header = c.header
			Middleware()(echo).ServeHTTP(httptest.NewRecorder(), req)
			recs := sink.records(t)
			if len(recs) != 1 {
				t.Fatalf("got %d records", len(recs))
			}
			for k, v := range c.want {
				if recs[0][k] != v {
					t.Errorf("%s = %#v, want %#v", k, recs[0][k], v)
				}
			}
		})
	}
}

func TestMiddlewareAcceptedIDIsNotLogged(t *testing.T) {
	var sink logSink
	sink.asDefault(t)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(DefaultHeader, "fine-12345")
	Middleware()(echo).ServeHTTP(httptest.NewRecorder(), req)
	req.Header.Del(DefaultHeader)
	Middleware()(echo).ServeHTTP(httptest.NewRecorder(), req)
	if sink.buf.Len() != 0 {
		t.Fatalf("logged without a rejection: %s", sink.buf.String())
	}
}

func TestMiddlewareDefaultLogger(t *testing.T) {
	var sink logSink
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	mw := Middleware()
	slog.SetDefault(sink.logger()) // after construction: must still be used
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(DefaultHeader, "bad id")
	mw(echo).ServeHTTP(httptest.NewRecorder(), req)
	if len(sink.records(t)) != 1 {
		t.Fatalf("slog.Default() not used: %q", sink.buf.String())
	}
}

func TestMiddlewareHeaderSetBeforeNext(t *testing.T) {
	srv := newServer(t, Middleware()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := w.Header().Get(DefaultHeader); got == "" || got != ID(r.Context()) {
			t.Errorf("inside the handler the response header is %q, context %q", got, ID(r.Context()))
		}
		w.WriteHeader(http.StatusNoContent)
	})))
	resp := clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {"early-12345"}})
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get(DefaultHeader) != "early-12345" {
		t.Fatalf("status %d, header %q", resp.StatusCode, resp.Header.Get(DefaultHeader))
	}
}

func TestMiddlewareOptions(t *testing.T) {
	t.Run("custom headers", func(t *testing.T) {
		h := Middleware(WithHeaders("x-amzn-trace-ref", "x-b3-ref"), WithResponseHeader("x-correlation-id"))(echo)
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Request-Id", "ignored-12345")
		req.Header.Set("X-B3-Ref", "second-12345")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("X-Correlation-Id"); got != "second-12345" {
			t.Fatalf("response header = %q", got)
		}
		if rec.Header().Get(DefaultHeader) != "" {
			t.Fatal("default response header set as well")
		}
	})
	t.Run("no inbound headers", func(t *testing.T) {
		h := Middleware(WithHeaders())(echo)
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Request-Id", "ignored-12345")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkUUIDv7(t, rec.Header().Get(DefaultHeader))
	})
}

func TestMiddlewareTraceparent(t *testing.T) {
	srv := newServer(t, Middleware()(echo))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"valid", []string{"traceparent: " + tp}, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"invalid", []string{"traceparent: " + strings.ToUpper(tp)}, ""},
		{"absent", nil, ""},
		{"repeated", []string{"traceparent: " + tp, "traceparent: " + tp}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := rawGet(t, srv, "/", append([]string{"X-Request-Id: trace-test-1"}, c.lines...)...)
			if s := readSeen(t, resp); s.trace != c.want || s.id != "trace-test-1" {
				t.Fatalf("saw %+v, want trace %q", s, c.want)
			}
		})
	}
}

func TestMiddlewareWithServeMux(t *testing.T) {
	t.Run("wrapping the mux", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("GET /items/{id}", echo)
		srv := newServer(t, Middleware()(mux))
		expectEchoed(t, clientGet(t, srv.URL+"/items/7", map[string][]string{"X-Request-Id": {"mux-123456"}}), "mux-123456")
		// The mux's own 404 still carries an ID, because the middleware ran first.
		resp := clientGet(t, srv.URL+"/nowhere", nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d", resp.StatusCode)
		}
		checkUUIDv7(t, resp.Header.Get(DefaultHeader))
	})
	t.Run("on one route", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.Handle("GET /items/{id}", Middleware()(echo))
		srv := newServer(t, mux)
		expectGenerated(t, clientGet(t, srv.URL+"/items/7", map[string][]string{"X-Request-Id": {"bad id"}}), "bad id")
	})
}

// discardWriter reuses its header map, so the benchmark counts only what the
// middleware itself allocates.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

var nop = http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})

func middlewareAllocs(req *http.Request) float64 {
	h := Middleware()(nop)
	w := &discardWriter{h: http.Header{}}
	return testing.AllocsPerRun(1000, func() { h.ServeHTTP(w, req) })
}

func TestMiddlewareAllocs(t *testing.T) {
	inbound := httptest.NewRequest(http.MethodGet, "/", nil)
	inbound.Header.Set(DefaultHeader, "0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d")
	inbound.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	// One for the request copy r.WithContext makes, one for the context.
	if n := middlewareAllocs(inbound); n > 2 {
		t.Errorf("inbound ID: %v allocs per request, want 2", n)
	}
	// Plus the generated ID string.
	if n := middlewareAllocs(httptest.NewRequest(http.MethodGet, "/", nil)); n > 3 {
		t.Errorf("generated ID: %v allocs per request, want 3", n)
	}
}

func BenchmarkMiddleware(b *testing.B) {
	run := func(b *testing.B, req *http.Request) {
		h := Middleware()(nop)
		w := &discardWriter{h: http.Header{}}
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(w, req)
		}
	}
	b.Run("inbound_valid", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set(DefaultHeader, "0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d")
		run(b, req)
	})
	b.Run("inbound_valid_traceparent", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set(DefaultHeader, "0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d")
		req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
		run(b, req)
	})
	b.Run("generated", func(b *testing.B) {
		run(b, httptest.NewRequest(http.MethodGet, "/", nil))
	})
}

func TestMiddlewareStacked(t *testing.T) {
	var sink logSink
	sink.asDefault(t)
	mw := Middleware()
	inner := Middleware(WithResponseHeader("X-Correlation-Id"))
	srv := newServer(t, mw(inner(echo)))
	resp := clientGet(t, srv.URL, map[string][]string{"X-Request-Id": {"bad id"}})
	id := resp.Header.Get(DefaultHeader)
	if resp.Header.Get("X-Correlation-Id") != id {
		t.Fatalf("stacked middlewares disagree: %q vs %q", id, resp.Header.Get("X-Correlation-Id"))
	}
	expectGenerated(t, resp, "bad id")
	if n := len(sink.records(t)); n != 1 {
		t.Fatalf("rejection logged %d times", n)
	}
}

func TestMiddlewareIgnoresBaseContextID(t *testing.T) {
	// An ID put on the server's base context identifies the server, not a
	// request; each request still gets its own.
	srv := httptest.NewUnstartedServer(Middleware()(echo))
	srv.Config.BaseContext = func(net.Listener) context.Context {
		return WithID(context.Background(), "server-0001")
	}
	srv.Start()
	t.Cleanup(srv.Close)
	a, b := clientGet(t, srv.URL, nil), clientGet(t, srv.URL, nil)
	expectGenerated(t, a, "server-0001")
	expectGenerated(t, b, "server-0001")
	if a.Header.Get(DefaultHeader) == b.Header.Get(DefaultHeader) {
		t.Fatal("two requests share an ID")
	}
}

// embedded is a middleware's own per-request context holding a Request, the
// use Acceptor exists for.
type embedded struct {
	context.Context
	corr corrstate.Request
}

func (e *embedded) Value(key any) any {
	if v, ok := e.corr.Value(key); ok {
		return v
	}
	return e.Context.Value(key)
}

func TestAcceptorEmbedded(t *testing.T) {
	base := WithID(context.Background(), "server-0001")
	e := &embedded{Context: base}
	if ID(e) != "server-0001" {
		t.Fatal("a Request not yet accepted hides its parent's ID")
	}
	req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(base)
	req.Header.Set(DefaultHeader, "req-7f3a9c21")
	req.Header.Set("Traceparent", specExample)
	rec := httptest.NewRecorder()
	newAcceptor().Accept(&e.corr, rec, req, defaultEnv{})
	if ID(e) != "req-7f3a9c21" || traceID(e) != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("ID %q, TraceID %q", ID(e), traceID(e))
	}
	if got := rec.Header().Values(DefaultHeader); len(got) != 1 || got[0] != "req-7f3a9c21" {
		t.Fatalf("response header %q", got)
	}
}

// A Request reachable from the request's context already (a layer that
// shares an outer one's state) is kept, and the new header gets an array of
// its own.
func TestAcceptorAlreadyAccepted(t *testing.T) {
	var sink logSink
	e := &embedded{Context: context.Background()}
	req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(e)
	req.Header.Set(DefaultHeader, "bad id")
	rec := httptest.NewRecorder()
	newAcceptor().Accept(&e.corr, rec, req, sinkLogs{l: sink.logger()})
	id := ID(e)
	newAcceptor(WithResponseHeader("X-Correlation-Id")).Accept(&e.corr, rec, req, sinkLogs{l: sink.logger()})
	if ID(e) != id || rec.Header().Get("X-Correlation-Id") != id || rec.Header().Get(DefaultHeader) != id {
		t.Fatalf("ID %q became %q, headers %v", id, ID(e), rec.Header())
	}
	rec.Header()["X-Correlation-Id"][0] = "changed"
	if rec.Header().Get(DefaultHeader) != id {
		t.Fatal("the two headers share one array")
	}
	if n := len(sink.records(t)); n != 1 {
		t.Fatalf("rejection logged %d times", n)
	}
}

func TestAcceptAllocs(t *testing.T) {
	a := newAcceptor()
	w := &discardWriter{h: http.Header{}}
	var v corrstate.Request
	log := defaultEnv{}
	inbound := httptest.NewRequest(http.MethodGet, "/", nil)
	inbound.Header.Set(DefaultHeader, "0193b1c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d")
	inbound.Header.Set("Traceparent", specExample)
	if n := testing.AllocsPerRun(1000, func() { a.Accept(&v, w, inbound, log) }); n != 0 {
		t.Errorf("inbound ID: %v allocs, want 0", n)
	}
	generated := httptest.NewRequest(http.MethodGet, "/", nil)
	if n := testing.AllocsPerRun(1000, func() { a.Accept(&v, w, generated, log) }); n != 1 {
		t.Errorf("generated ID: %v allocs, want 1 (the ID)", n)
	}
}

// The cut at logValueMax never leaves half an escape ("\u00" of "\u00e9"),
// which a reader would take for other characters.
func TestRejectionCutKeepsWholeEscapes(t *testing.T) {
	for _, hostile := range []string{strings.Repeat("é", 100), "id " + strings.Repeat("😀", 40), strings.Repeat("a\t", 80)} {
		var sink logSink
		sink.asDefault(t)
		srv := newServer(t, Middleware()(echo))
		resp := rawGet(t, srv, "/", "X-Request-Id: "+hostile)
		recs := sink.records(t)
		if len(recs) != 1 {
			t.Fatalf("%q: got %d records, status %d", hostile[:8], len(recs), resp.StatusCode)
		}
		v, _ := recs[0]["value"].(string)
		if len(v) > logValueMax || len(v) < logValueMax-len(`\U0010ffff`) || recs[0]["truncated"] != true {
			t.Errorf("%q: value %q (%d bytes), truncated %v", hostile[:8], v, len(v), recs[0]["truncated"])
		}
		for i := 0; i < len(v); i++ {
			if v[i] != '\\' {
				continue
			}
			switch {
			case strings.HasPrefix(v[i:], `\u`) && len(v[i:]) >= 6, strings.HasPrefix(v[i:], `\U`) && len(v[i:]) >= 10,
				strings.HasPrefix(v[i:], `\t`):
			default:
				t.Errorf("%q: value %q ends inside an escape at %d", hostile[:8], v, i)
			}
			i++
		}
	}
}

// TestAcceptedIDsAreValid: whatever a request offers, the ID the layer
// accepts (corrstate.Request.Accepted) passes Valid, inner layers included;
// problem copies such an ID into a JSON body without a pass for escapes.
func TestAcceptedIDsAreValid(t *testing.T) {
	offers := [][]string{nil, {"AZaz09._~+/=-azAZ"}, {`bad"id<script>`}, {"short"}, {"a\x01bcdefghij"},
		{strings.Repeat("a", 200)}, {"valid-id-0001", "valid-id-0002"}, {"é-not-ascii-id"}}
	for _, offer := range offers {
		var got *corrstate.Request
		inner := Middleware()(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got = corrstate.From(r.Context())
		}))
		h := Middleware()(inner)
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header[DefaultHeader] = offer
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got == nil || !got.Accepted || !Valid(got.ID) {
			t.Errorf("offer %q: accepted %+v", offer, got)
		}
	}
}
