package problem

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/correlation"
)

// logSink collects JSON log records for assertions.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *logSink) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

func newLogger(sink *logSink) *slog.Logger {
	return slog.New(slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, method, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestWriteOverHTTP(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)), WithBaseURI("https://errors.example.com/"))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A previous attempt at a body left representation headers behind;
		// the rate-limit and Allow headers must survive.
		w.Header().Set("Content-Length", "999")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("ETag", `"abc"`)
		w.Header().Set("Allow", "GET, POST")
		w.Header().Set("X-RateLimit-Limit", "100")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		ctx := correlation.WithID(r.Context(), "req-abcdefgh")
		p := New(RateLimited).WithDetail("Slow down.").WithRetryAfter(2400 * time.Millisecond)
		if err := wr.Write(w, r.WithContext(ctx), p); err != nil {
			t.Errorf("Write: %v", err)
		}
	}))
	resp, body := do(t, http.MethodGet, srv.URL+"/v1/orders?x=1", nil)
	if resp.StatusCode != 429 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	wantHeaders := map[string]string{
		"Content-Type": "application/problem+json", "Cache-Control": "no-store",
		"X-Error-Code": "rate_limited", "Retry-After": "3", "X-Request-Id": "req-abcdefgh",
		"Allow": "GET, POST", "X-Ratelimit-Limit": "100", "Access-Control-Allow-Origin": "*",
		"Content-Encoding": "", "Etag": "", "X-Content-Type-Options": "nosniff", "Vary": "Accept",
	}
	for k, v := range wantHeaders {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if resp.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length %d for a body of %d", resp.ContentLength, len(body))
	}
	p, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if p.typ != "https://errors.example.com/rate_limited" || p.instance != "/v1/orders" ||
		p.status != 429 || p.correlationID != "req-abcdefgh" || p.retryAfter != 2400*time.Millisecond || !p.retryable {
		t.Errorf("body %s", body)
	}
	recs := sink.records(t)
	if len(recs) != 1 {
		t.Fatalf("%d log records, want 1", len(recs))
	}
	rec := recs[0]
	for k, v := range map[string]any{"level": "WARN", "code": "rate_limited", "status": 429.0, "cause": "request",
		"action": "retry", "correlation_id": "req-abcdefgh", "method": "GET", "path": "/v1/orders"} {
		if rec[k] != v {
			t.Errorf("log %s = %v, want %v", k, rec[k], v)
		}
	}
}

func TestWriteNegotiatesAndHEAD(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithBrand("Acme"))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, New(NotFound))
	}))
	cases := []struct{ accept, contentType, prefix string }{
		{"", "application/problem+json", `{"type":`},
		{"*/*", "application/problem+json", `{"type":`},
		{"image/png", "application/problem+json", `{"type":`},
		{"application/xml", "application/problem+xml; charset=utf-8", `<?xml`},
		{"text/plain", "text/plain; charset=utf-8", "Acme: not_found: "},
	}
	for _, c := range cases {
		resp, body := do(t, http.MethodGet, srv.URL+"/x", map[string]string{"Accept": c.accept})
		if resp.Header.Get("Content-Type") != c.contentType || !bytes.HasPrefix(body, []byte(c.prefix)) {
			t.Errorf("Accept %q: %s %q", c.accept, resp.Header.Get("Content-Type"), body)
		}
	}
	resp, body := do(t, http.MethodHead, srv.URL+"/x", nil)
	if resp.StatusCode != 404 || len(body) != 0 || resp.Header.Get("X-Error-Code") != "not_found" {
		t.Errorf("HEAD: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}

func TestWriteAfterResponseStarted(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)))
	rec := httptest.NewRecorder()
	rec.WriteHeader(200)
	_, _ = rec.WriteString("partial")
	err := wr.Write(&startedWriter{ResponseWriter: rec, started: true}, httptest.NewRequest("GET", "/", nil), New(Internal))
	if !errors.Is(err, ErrResponseStarted) {
		t.Fatalf("err = %v", err)
	}
	if rec.Body.String() != "partial" || rec.Header().Get("Content-Type") != "" {
		t.Fatalf("wrote after start: %q %v", rec.Body.String(), rec.Header())
	}
	recs := sink.records(t)
	if len(recs) != 1 || recs[0]["response_started"] != true {
		t.Fatalf("log = %v", recs)
	}
}

func TestLegacyWindow(t *testing.T) {
	until := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	since := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	now := until.Add(-time.Hour)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)), WithLegacy(Legacy{Since: since, Until: until, DeprecationHeaders: true}), func(w *Writer) { w.now = clock })
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, New(Conflict).WithDetail("Order 7 changed."))
	}))
	resp, body := do(t, "GET", srv.URL, nil)
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	if m["error"] != "conflict" || m["message"] != "Order 7 changed." {
		t.Errorf("legacy members missing in window: %s", body)
	}
	if got := resp.Header.Get("Deprecation"); got != fmt.Sprintf("@%d", since.Unix()) {
		t.Errorf("Deprecation = %q", got)
	}
	if got := resp.Header.Get("Sunset"); got != "Mon, 01 Mar 2027 00:00:00 GMT" {
		t.Errorf("Sunset = %q", got)
	}
	mu.Lock()
	now = until
	mu.Unlock()
	resp, body = do(t, "GET", srv.URL, nil)
	m = nil
	_ = json.Unmarshal(body, &m)
	if _, ok := m["error"]; ok || m["message"] != nil || resp.Header.Get("Sunset") != "" || resp.Header.Get("Deprecation") != "" {
		t.Errorf("legacy after window: %v %s", resp.Header, body)
	}
}

func TestLegacyMessageFallsBackToTitle(t *testing.T) {
	p := New(NotFound)
	p.detail = ""
	var m map[string]any
	_ = json.Unmarshal(p.appendJSON(nil, true), &m)
	if m["message"] != "Not found" {
		t.Fatalf("message = %v", m["message"])
	}
}

type dbError struct{ dsn string }

func (e *dbError) Error() string {
	return "pq: connect " + e.dsn + ": dial tcp 10.20.30.40:5432: duplicate key value violates unique constraint \"users_email_key\" Key (email)=(alice@example.com)"
}

type notFoundErr struct{ id string }

func (e notFoundErr) Error() string        { return "order " + e.id + " missing in shard db-7.internal" }
func (e notFoundErr) PublicDetail() string { return "Order " + e.id + " does not exist." }

func TestHandlerErrorNeverRendersRawText(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)))
	raw := &dbError{dsn: "postgres://app:s3cr3t-pw@10.20.30.40:5432/orders"}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r, wr.FromError(fmt.Errorf("create order: %w", raw)))
	}))
	resp, body := do(t, "POST", srv.URL+"/v1/orders", nil)
	if resp.StatusCode != 500 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for _, secret := range []string{"s3cr3t-pw", "10.20.30.40", "postgres://", "alice@example.com", "users_email_key", "pq:", "create order"} {
		if bytes.Contains(body, []byte(secret)) {
			t.Errorf("response leaks %q: %s", secret, body)
		}
	}
	p, err := Parse(body)
	if err != nil || p.code != "internal" || p.detail != def(Internal).DefaultDetail {
		t.Errorf("body %s (%v)", body, err)
	}
	recs := sink.records(t)
	if len(recs) != 1 || recs[0]["level"] != "ERROR" {
		t.Fatalf("log = %v", recs)
	}
	logged, _ := recs[0]["error"].(string)
	for _, want := range []string{"10.20.30.40", "alice@example.com", "users_email_key", "create order", "postgres://"} {
		if !strings.Contains(logged, want) {
			t.Errorf("log record lacks %q: %q", want, logged)
		}
	}
	if strings.Contains(logged, "s3cr3t-pw") {
		t.Errorf("log record keeps the DSN password: %q", logged)
	}
}

func TestFromError(t *testing.T) {
	wr := NewWriter(WithMappers(
		MapIs(errSoldOut, func() *Problem { return New(Conflict).WithDetail("The item is sold out.") }),
		MapAs(func(e *dbError) *Problem { return New(UpstreamError) }),
	))
	sentinel := New(PolicyDenied).WithDetail("Exports are disabled.")
	cases := []struct {
		err    error
		code   string
		detail string
	}{
		{sentinel, "policy_denied", "Exports are disabled."},
		{fmt.Errorf("wrapped: %w", sentinel), "policy_denied", "Exports are disabled."},
		{fmt.Errorf("x: %w", errSoldOut), "conflict", "The item is sold out."},
		{&dbError{}, "upstream_error", def(UpstreamError).DefaultDetail},
		{context.DeadlineExceeded, "timeout", def(Timeout).DefaultDetail},
		{fmt.Errorf("read: %w", context.Canceled), "client_closed_request", def(ClientClosedRequest).DefaultDetail},
		// Reading or decoding errors that did not come from this request's
		// body through the kit are the server's own.
		{&http.MaxBytesError{Limit: 1024}, "internal", def(Internal).DefaultDetail},
		{json.Unmarshal([]byte("{"), &struct{}{}), "internal", def(Internal).DefaultDetail},
		{json.Unmarshal([]byte(`{"a":1}`), &struct{ A string }{}), "internal", def(Internal).DefaultDetail},
		{fmt.Errorf("upstream: %w", io.ErrUnexpectedEOF), "internal", def(Internal).DefaultDetail},
		{notFoundErr{id: "42"}, "internal", def(Internal).DefaultDetail},
		{errors.New("boom at /home/app/main.go:12"), "internal", def(Internal).DefaultDetail},
		{nil, "internal", def(Internal).DefaultDetail},
	}
	for _, c := range cases {
		p := wr.FromError(c.err)
		if p.code != c.code || c.detail != "" && p.Message() != c.detail {
			t.Errorf("FromError(%v) = %s %q, want %s %q", c.err, p.code, p.Message(), c.code, c.detail)
		}
		if c.err != nil && !errors.Is(p, c.err) {
			t.Errorf("FromError(%v) lost the chain", c.err)
		}
	}
	if sentinel.err != nil {
		t.Error("FromError modified a shared problem")
	}
	// A PublicDetailer is honoured when the code shows details.
	withPublic := wr.FromError(fmt.Errorf("lookup: %w", &publicTimeout{}))
	if withPublic.code != "timeout" || withPublic.detail != "The catalogue search took too long." {
		t.Errorf("public detail ignored: %+v", withPublic)
	}
}

var errSoldOut = errors.New("sold out")

type publicTimeout struct{}

func (publicTimeout) Error() string        { return "search 10.0.0.8: context deadline exceeded" }
func (publicTimeout) PublicDetail() string { return "The catalogue search took too long." }
func (publicTimeout) Unwrap() error        { return context.DeadlineExceeded }

func TestWriteDoesNotModifySharedProblem(t *testing.T) {
	shared := New(NotFound)
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = wr.Write(w, r.WithContext(correlation.WithID(r.Context(), "req-"+r.URL.Path[1:])), shared)
	}))
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, body := do(t, "GET", fmt.Sprintf("%s/%08d", srv.URL, i), nil)
			p, _ := Parse(body)
			if p.correlationID != fmt.Sprintf("req-%08d", i) {
				t.Errorf("got %s", body)
			}
		}()
	}
	wg.Wait()
	if shared.instance != "" || shared.correlationID != "" || shared.typ != "" {
		t.Fatalf("shared problem modified: %+v", shared)
	}
}

func TestLogLevels(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)), WithClientErrorLevel(slog.LevelDebug))
	for _, c := range []Kind{Internal, RateLimited, Unauthorized, Forbidden, NotFound, UpstreamTimeout} {
		_ = wr.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), New(c))
	}
	var levels []string
	for _, rec := range sink.records(t) {
		levels = append(levels, rec["level"].(string))
	}
	if got := strings.Join(levels, ","); got != "ERROR,WARN,WARN,WARN,DEBUG,ERROR" {
		t.Fatalf("levels = %s", got)
	}
}

func TestHiddenDetailGoesToLogOnly(t *testing.T) {
	sink := &logSink{}
	wr := NewWriter(WithLogger(newLogger(sink)))
	rec := httptest.NewRecorder()
	_ = wr.Write(rec, httptest.NewRequest("GET", "/", nil), New(Internal).WithDetail("cache node 7 is down"))
	if strings.Contains(rec.Body.String(), "cache node") {
		t.Fatalf("internal detail rendered: %s", rec.Body.String())
	}
	if recs := sink.records(t); recs[0]["hidden_detail"] != "cache node 7 is down" {
		t.Fatalf("log = %v", recs)
	}
}

// TestCodesAlternateOverHTTP: the writer remembers the code it looked up
// last; requests that alternate codes, concurrently, each go out with their
// own status, code header and code member, and an unregistered code still
// goes out as internal.
func TestCodesAlternateOverHTTP(t *testing.T) {
	wr := NewWriter(WithLogger(slog.New(slog.DiscardHandler)))
	kinds := []Kind{NotFound, Conflict, Internal, NotFound, Kind("no_such_code"), Unavailable, Internal}
	srv := httptest.NewServer(wr.Handler(func(_ http.ResponseWriter, r *http.Request) error {
		var i int
		_, _ = fmt.Sscan(r.URL.Query().Get("i"), &i)
		return kinds[i]
	}))
	defer srv.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 40 {
				i := (w + j) % len(kinds)
				res, err := http.Get(fmt.Sprintf("%s/?i=%d", srv.URL, i))
				if err != nil {
					t.Error(err)
					return
				}
				var body struct{ Code string }
				_ = json.NewDecoder(res.Body).Decode(&body)
				res.Body.Close()
				want := kinds[i]
				if _, ok := wr.Registry().Lookup(want); !ok {
					want = Internal
				}
				def, _ := wr.Registry().Lookup(want)
				if res.StatusCode != def.Status || res.Header.Get(DefaultCodeHeader) != string(want) || body.Code != string(want) {
					t.Errorf("kind %s: status %d, header %q, code %q", kinds[i], res.StatusCode, res.Header.Get(DefaultCodeHeader), body.Code)
				}
			}
		}()
	}
	wg.Wait()
}

// TestCachedEveryCode: every built-in code, looked up twice in turns that
// share slots, finds its own entry; an unknown code finds none and takes
// no slot.
func TestCachedEveryCode(t *testing.T) {
	wr := NewWriter()
	for range 2 {
		if e := wr.cached("no_such_code"); e != nil {
			t.Fatalf("unknown code: %+v", e.def)
		}
		for i := range builtin {
			code := string(builtin[i].Code)
			if e := wr.cached(code); e == nil || e.header[0] != code || string(e.def.Code) != code {
				t.Fatalf("cached(%q) = %+v", code, e)
			}
		}
	}
}
