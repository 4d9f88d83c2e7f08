// Package blackbox attacks the kit from the outside, over real HTTP, the
// way a user, an RFC-literate reviewer and an attacker would: every failure
// class through the recommended wiring on chi and on http.ServeMux, with the
// wire contract of DESIGN.md checked on every answer and the log read back.
package blackbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/faultline-go/faultline/bind"
	"github.com/faultline-go/faultline/correlation"
	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/ratelimit"
)

const (
	bodyLimit  = 1 << 10
	reqTimeout = 300 * time.Millisecond
)

// secrets are what the hostile handlers put into errors, panics and
// inputs; none of them may reach a client, in a body or a header.
var secrets = []string{
	"hunter2",
	"s3cr3tPassw0rd",
	"AKIAIOSFODNN7EXAMPLE",
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl",
	"sessionid=9f8e7d6c5b4a",
	"10.12.0.7",
	"/srv/app/internal/db.go",
	"SELECT",
	"users_email_key",
	"goroutine ",
	"ghp_0123456789abcdefghijABCDEFGHIJ012345",
}

// leakyText carries every secret: what a driver, an SDK or a panic would
// say.
const leakyText = `dial postgres://app:hunter2@10.12.0.7:5432/orders failed; ` +
	`password=s3cr3tPassw0rd aws_access_key_id=AKIAIOSFODNN7EXAMPLE ` +
	`aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ` +
	`Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlc2lnbmF0dXJl ` +
	`Cookie: sessionid=9f8e7d6c5b4a at /srv/app/internal/db.go:42 ` +
	`ERROR: duplicate key value violates unique constraint "users_email_key" in SELECT id FROM users ` +
	`token ghp_0123456789abcdefghijABCDEFGHIJ012345`

// app is one server under attack with its log.
type app struct {
	t      *testing.T
	srv    *httptest.Server
	logs   *testlog.Buffer
	legacy bool
	execs  *counter
}

type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[k]++
}

type order struct {
	SKU      string `json:"sku" validate:"required"`
	Quantity int    `json:"quantity" validate:"min=1"`
}

func newWriter(logger *slog.Logger, legacy bool) *problem.Writer {
	opts := []problem.Option{problem.WithLogger(logger), problem.WithBaseURI("https://errors.example.com/")}
	if legacy {
		opts = append(opts, problem.WithLegacy(problem.Legacy{Until: time.Now().Add(time.Hour)}))
	}
	return problem.NewWriter(opts...)
}

// routes are the hostile handlers, mounted on chi and on ServeMux alike.
func routes(wr *problem.Writer, execs *counter) map[string]http.Handler {
	return map[string]http.Handler{
		"POST /v1/orders": wr.Handler(func(w http.ResponseWriter, r *http.Request) error {
			execs.inc("orders")
			if _, err := bind.Decode[order](r); err != nil {
				return err
			}
			w.WriteHeader(http.StatusCreated)
			return nil
		}),
		"GET /v1/orders/{id}": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no order "+r.URL.Path+" "+leakyText, http.StatusNotFound)
		}),
		"GET /err": wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return fmt.Errorf("load order: %w", errors.New(leakyText))
		}),
		"POST /err": wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return errors.New(leakyText)
		}),
		"POST /upstream": wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return problem.New(problem.UpstreamError).Wrap(errors.New(leakyText))
		}),
		"GET /upstream": wr.Handler(func(http.ResponseWriter, *http.Request) error {
			return problem.New(problem.UpstreamRequestFailed).Wrap(errors.New(leakyText))
		}),
		"GET /panic": http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			panic(leakyText)
		}),
		"POST /panic": http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			execs.inc("panic")
			panic(errors.New(leakyText))
		}),
		"GET /panic-after": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, `{"items":[`)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			panic(leakyText)
		}),
		"GET /slow": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}),
		"POST /slow": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			execs.inc("slow")
			<-r.Context().Done()
		}),
		"POST /upload": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.Copy(io.Discard, r.Body); err != nil {
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}),
		"GET /limited": ratelimit.LimitBy(2, time.Minute, ratelimit.ByIP)(
			http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })),
		"GET /ok": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
		}),
	}
}

func stack(wr *problem.Writer) func(http.Handler) http.Handler {
	return middleware.Stack(
		middleware.WithWriter(wr),
		middleware.WithBodyLimit(bodyLimit),
		middleware.WithRequestTimeout(reqTimeout),
	)
}

// newChiApp is the README's wiring on chi.
func newChiApp(t *testing.T, legacy bool) *app {
	a := &app{t: t, logs: &testlog.Buffer{}, legacy: legacy, execs: &counter{n: map[string]int{}}}
	a.srv = httptest.NewServer(chiRouter(a, legacy))
	t.Cleanup(a.srv.Close)
	return a
}

// newChiAppHTTP2 is the same service over TLS and HTTP/2.
func newChiAppHTTP2(t *testing.T) *app {
	a := &app{t: t, logs: &testlog.Buffer{}, execs: &counter{n: map[string]int{}}}
	a.srv = httptest.NewUnstartedServer(chiRouter(a, false))
	a.srv.EnableHTTP2 = true
	a.srv.StartTLS()
	t.Cleanup(a.srv.Close)
	return a
}

func chiRouter(a *app, legacy bool) http.Handler {
	wr := newWriter(testlog.Logger(a.logs), legacy)
	r := chi.NewRouter()
	r.Use(stack(wr))
	r.NotFound(middleware.NotFound())
	r.MethodNotAllowed(middleware.MethodNotAllowed())
	for pattern, h := range routes(wr, a.execs) {
		method, path, _ := strings.Cut(pattern, " ")
		r.Method(method, path, h)
	}
	return r
}

// newMuxApp is the same service on http.ServeMux, without chi.
func newMuxApp(t *testing.T, legacy bool) *app {
	a := &app{t: t, logs: &testlog.Buffer{}, legacy: legacy, execs: &counter{n: map[string]int{}}}
	wr := newWriter(testlog.Logger(a.logs), legacy)
	mux := http.NewServeMux()
	for pattern, h := range routes(wr, a.execs) {
		mux.Handle(pattern, h)
	}
	a.srv = httptest.NewServer(stack(wr)(mux))
	t.Cleanup(a.srv.Close)
	return a
}

// newLayersApp mounts the middlewares one by one, in the order Stack
// documents, on a ServeMux: the same contract must hold.
func newLayersApp(t *testing.T, legacy bool) *app {
	a := &app{t: t, logs: &testlog.Buffer{}, legacy: legacy, execs: &counter{n: map[string]int{}}}
	wr := newWriter(testlog.Logger(a.logs), legacy)
	mux := http.NewServeMux()
	for pattern, h := range routes(wr, a.execs) {
		mux.Handle(pattern, h)
	}
	var h http.Handler = mux
	h = middleware.Timeout(reqTimeout)(h)
	h = middleware.BodyLimit(bodyLimit)(h)
	h = middleware.Guard()(h)
	h = middleware.Recover()(h)
	h = correlation.Middleware()(h)
	// The writer reaches the layers and correlation's rejected-ID log
	// through the request's context, as problem.FromContext documents.
	h = withWriterContext(wr, h)
	a.srv = httptest.NewServer(h)
	t.Cleanup(a.srv.Close)
	return a
}

func withWriterContext(wr *problem.Writer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(problemhook.NewContext(r.Context(), wr)))
	})
}

func apps(t *testing.T, legacy bool) map[string]func(*testing.T) *app {
	return map[string]func(*testing.T) *app{
		"chi":    func(t *testing.T) *app { return newChiApp(t, legacy) },
		"mux":    func(t *testing.T) *app { return newMuxApp(t, legacy) },
		"layers": func(t *testing.T) *app { return newLayersApp(t, legacy) },
	}
}

// answer is one response as the client saw it.
type answer struct {
	status int
	header http.Header
	body   []byte
	doc    map[string]any
}

func (a *app) do(req *http.Request) answer {
	a.t.Helper()
	res, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	ans := answer{status: res.StatusCode, header: res.Header, body: body}
	if len(body) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(body, &ans.doc); err != nil {
			a.t.Fatalf("%s %s: body is not JSON: %v\n%s", req.Method, req.URL, err, body)
		}
	}
	return ans
}

func (a *app) request(method, path, body string, header ...string) answer {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return a.do(req)
}

// raw sends bytes as they are, for what net/http's client refuses to send
// (CRLF in a header, duplicate IDs, a NUL), and reads one response.
func (a *app) raw(request string) answer {
	a.t.Helper()
	conn, err := net.DialTimeout("tcp", a.srv.Listener.Addr().String(), time.Second)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		a.t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		a.t.Fatalf("reading the answer to %q: %v", request, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	ans := answer{status: res.StatusCode, header: res.Header, body: body}
	if len(body) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(body, &ans.doc); err != nil {
			a.t.Fatalf("body is not JSON: %v\n%s", err, body)
		}
	}
	return ans
}

// records are the log's JSON records, in order.
func (a *app) records() []map[string]any {
	a.t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(a.logs.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			a.t.Fatalf("log line is not JSON: %v\n%s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// problemRecords waits (the timeout's record may be written from its own
// goroutine just after the client has its answer) for the problem records
// logged under id.
func (a *app) problemRecords(id string, want int) []map[string]any {
	a.t.Helper()
	var got []map[string]any
	for deadline := time.Now().Add(2 * time.Second); ; {
		got = got[:0]
		for _, rec := range a.records() {
			if rec["correlation_id"] == id && strings.HasPrefix(fmt.Sprint(rec["msg"]), "problem") {
				got = append(got, rec)
			}
		}
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var problemSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	const path = "/work/shared/problem-details-schemas/rfc9457-appendix-a.schema.json"
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("rfc9457.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("rfc9457.json")
})

// validateSchema checks body against RFC 9457 Appendix A's JSON Schema,
// with formats (uri-reference) asserted. The schema is the shared copy;
// without it the check is skipped (it is not part of this repository).
func validateSchema(t *testing.T, body []byte) {
	t.Helper()
	sch, err := problemSchema()
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("body does not validate against RFC 9457's schema: %v\n%s", err, body)
	}
}

// checkContract asserts the wire contract of DESIGN.md on one problem
// answer, and that its log record carries the same correlation ID.
// It returns the correlation ID.
func (a *app) checkContract(what string, ans answer, wantStatus int, wantCode string) string {
	t := a.t
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: "+format+"\nheaders: %v\nbody: %s", append(append([]any{what}, args...), ans.header, ans.body)...)
	}
	if ans.status != wantStatus {
		fail("status %d, want %d", ans.status, wantStatus)
	}
	if ct := ans.header.Get("Content-Type"); ct != "application/problem+json" {
		fail("Content-Type %q", ct)
		return ""
	}
	if ans.doc == nil {
		fail("no problem body")
		return ""
	}
	validateSchema(t, ans.body)
	if got := ans.header.Get("Cache-Control"); got != "no-store" {
		fail("Cache-Control %q", got)
	}
	if st, ok := ans.doc["status"].(float64); !ok || int(st) != ans.status {
		fail("body status %v, sent %d", ans.doc["status"], ans.status)
	}
	code, _ := ans.doc["code"].(string)
	if code != wantCode {
		fail("code %q, want %q", code, wantCode)
	}
	if got := ans.header.Get("X-Error-Code"); got != code {
		fail("X-Error-Code %q, body code %q", got, code)
	}
	if ans.doc["type"] != "https://errors.example.com/"+code {
		fail("type %v", ans.doc["type"])
	}
	ids := ans.header.Values("X-Request-Id")
	if len(ids) != 1 || !correlation.Valid(ids[0]) {
		fail("X-Request-Id %q", ids)
	}
	id, _ := ans.doc["correlation_id"].(string)
	if len(ids) == 1 && id != ids[0] {
		fail("correlation_id %q, header %q", id, ids[0])
	}
	action, _ := ans.doc["action"].(string)
	retryable, ok := ans.doc["retryable"].(bool)
	if !ok {
		fail("retryable missing")
	}
	if action == "retry" && !retryable {
		fail("action retry with retryable false")
	}
	ms, hasMS := ans.doc["retry_after_ms"].(float64)
	ra := ans.header.Get("Retry-After")
	switch {
	case hasMS && !retryable:
		fail("retry_after_ms on a problem that is not retryable")
	case hasMS:
		secs, err := strconv.Atoi(ra)
		if err != nil || secs != int(math.Ceil(ms/1000)) {
			fail("Retry-After %q disagrees with retry_after_ms %v", ra, ms)
		}
	case ra != "" && (retryable || action == "verify"):
		fail("Retry-After %q without retry_after_ms", ra)
	}
	_, hasErr := ans.doc["error"]
	_, hasMsg := ans.doc["message"]
	if a.legacy {
		msg := ans.doc["detail"]
		if msg == nil {
			msg = ans.doc["title"]
		}
		if ans.doc["error"] != code || ans.doc["message"] != msg {
			fail("legacy members error=%v message=%v", ans.doc["error"], ans.doc["message"])
		}
	} else if hasErr || hasMsg {
		fail("legacy members outside the window")
	}
	a.checkNoLeak(what, ans)
	recs := a.problemRecords(id, 1)
	if len(recs) != 1 {
		fail("%d problem records under %q, want 1:\n%s", len(recs), id, a.logs.String())
	} else if recs[0]["code"] != code {
		fail("logged code %v", recs[0]["code"])
	}
	return id
}

// checkNoLeak asserts that no secret reaches the client.
func (a *app) checkNoLeak(what string, ans answer) {
	a.t.Helper()
	var hdr strings.Builder
	_ = ans.header.Write(&hdr)
	for _, s := range secrets {
		if bytes.Contains(bytes.ToLower(ans.body), []byte(strings.ToLower(s))) {
			a.t.Errorf("%s: %q leaked into the body: %s", what, s, ans.body)
		}
		if strings.Contains(strings.ToLower(hdr.String()), strings.ToLower(s)) {
			a.t.Errorf("%s: %q leaked into the headers: %s", what, s, hdr.String())
		}
	}
}

// checkLogRedacted asserts the log has the detail but none of the
// credentials.
func (a *app) checkLogRedacted(what string) {
	a.t.Helper()
	logs := a.logs.String()
	for _, s := range []string{"hunter2", "s3cr3tPassw0rd", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "c2lnbmF0dXJlc2lnbmF0dXJl", "9f8e7d6c5b4a", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "AKIAIOSFODNN7EXAMPLE"} {
		if strings.Contains(logs, s) {
			a.t.Errorf("%s: the log holds the secret %q:\n%s", what, s, logs)
		}
	}
}
