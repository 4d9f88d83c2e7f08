package middleware

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/faultline-go/faultline/internal/problemhook"
	"github.com/faultline-go/faultline/internal/testlog"
	"github.com/faultline-go/faultline/problem"
)

// syncBuffer collects output written from server goroutines.
type syncBuffer struct{ testlog.Buffer }

// records parses the JSON log lines written so far.
func (b *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// kit is one test's writer, logs and server error log.
type kit struct {
	logs   *syncBuffer
	errlog *syncBuffer
	writer *problem.Writer
}

func newKit() *kit {
	k := &kit{logs: &syncBuffer{}, errlog: &syncBuffer{}}
	k.writer = problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))))
	return k
}

// serve starts a real HTTP server whose ErrorLog is captured, so tests can
// assert that net/http never complained about a superfluous WriteHeader.
func (k *kit) serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(k.errlog, "", 0)
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		if s := k.errlog.String(); strings.Contains(s, "superfluous") {
			t.Errorf("server error log: %s", s)
		}
	})
	return srv
}

// carried hands the kit's writer to h through the request's context, as a
// service does for the middlewares it mounts without Stack.
func (k *kit) carried(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(problemhook.NewContext(r.Context(), k.writer)))
	})
}

// router is one of the two routers every hostile case runs against.
type router struct {
	name string
	// build mounts the middleware and registers handlers on a fresh router.
	build func(mw func(http.Handler) http.Handler, routes map[string]http.HandlerFunc) http.Handler
}

// routes are "METHOD /path" keys, as http.ServeMux patterns are.
var routers = []router{
	{"chi", func(mw func(http.Handler) http.Handler, routes map[string]http.HandlerFunc) http.Handler {
		r := chi.NewRouter()
		r.Use(mw)
		for pattern, h := range routes {
			method, path, _ := strings.Cut(pattern, " ")
			r.Method(method, path, h)
		}
		return r
	}},
	{"servemux", func(mw func(http.Handler) http.Handler, routes map[string]http.HandlerFunc) http.Handler {
		m := http.NewServeMux()
		for pattern, h := range routes {
			m.Handle(pattern, h)
		}
		return mw(m)
	}},
}

func forEachRouter(t *testing.T, fn func(t *testing.T, rt router)) {
	for _, rt := range routers {
		t.Run(rt.name, func(t *testing.T) { fn(t, rt) })
	}
}

type response struct {
	*http.Response
	body []byte
}

func do(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return response{resp, b}
}

func get(t *testing.T, url string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

// members decodes a problem body into its raw JSON members.
func members(t *testing.T, r response) map[string]any {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, body %q", ct, r.body)
	}
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return m
}

// wantProblem checks status, code header and the members that matter.
func wantProblem(t *testing.T, r response, status int, code string, want map[string]any) map[string]any {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %q", r.StatusCode, status, r.body)
	}
	m := members(t, r)
	if m["code"] != code || m["status"] != float64(status) {
		t.Fatalf("code %v status %v, want %s %d; body %s", m["code"], m["status"], code, status, r.body)
	}
	if h := r.Header.Get(problem.DefaultCodeHeader); h != code {
		t.Fatalf("%s = %q, want %q", problem.DefaultCodeHeader, h, code)
	}
	if m["correlation_id"] == nil || m["correlation_id"] != r.Header.Get("X-Request-Id") {
		t.Fatalf("correlation_id %v, X-Request-Id %q", m["correlation_id"], r.Header.Get("X-Request-Id"))
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v; body %s", k, m[k], v, r.body)
		}
	}
	return m
}

// rawRequest sends bytes verbatim over TCP, for the headers net/http's
// client refuses to send, and returns the parsed response with its body.
func rawRequest(t *testing.T, srv *httptest.Server, raw string) (response, net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	resp.Body.Close()
	return response{resp, b}, conn, br
}

// connClosed reports whether the server closed the connection.
func connClosed(t *testing.T, conn net.Conn, br *bufio.Reader) bool {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := br.ReadByte()
	return err == io.EOF
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

func containsStr(v any, s string) bool {
	str, ok := v.(string)
	return ok && strings.Contains(str, s)
}

func httptestRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func httptestRequest(method, path, accept string) *http.Request {
	r := httptest.NewRequest(method, path, nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	return r
}

// defaultKit makes a new kit's writer problem.Default() for the test, and
// restores the one before it when the test ends.
func defaultKit(t *testing.T) *kit {
	t.Helper()
	prev := problem.Default()
	t.Cleanup(func() { problem.SetDefault(prev) })
	k := newKit()
	problem.SetDefault(k.writer)
	return k
}

// layerCase is one middleware of the package mounted on its own, with a
// handler that makes it answer with a problem.
type layerCase struct {
	name   string
	mw     func(http.Handler) http.Handler
	h      http.HandlerFunc
	status int
	code   string
}

// layerCases are the middlewares that take no option, each made to answer
// (Guard both by a bare status and by http.Error), with what they answer.
func layerCases() []layerCase {
	slow := func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	return []layerCase{
		{"Recover", Recover(), func(http.ResponseWriter, *http.Request) { panic("x") }, 500, "internal"},
		{"Guard", Guard(), func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusConflict) }, 409, "conflict"},
		{"Guard/http.Error", Guard(), func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) }, http.StatusGone, "gone"},
		{"BodyLimit", BodyLimit(4), func(http.ResponseWriter, *http.Request) {}, 413, "request_too_large"},
		{"Timeout", Timeout(20 * time.Millisecond), slow, 503, "timeout"},
	}
}
