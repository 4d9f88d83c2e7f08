package middleware

import (
	"bufio"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faultline-go/faultline/problem"
)

func TestGuardHTTPError(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /fail": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) },
			"GET /gone": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) },
		})
		srv := k.serve(t, h)
		r := get(t, srv.URL+"/fail")
		wantProblem(t, r, 500, "internal", map[string]any{"cause": "internal"})
		if contains(r.body, "boom") {
			t.Fatalf("handler text leaked: %s", r.body)
		}
		wantProblem(t, get(t, srv.URL+"/gone"), 404, "not_found", nil)
	})
}

func TestGuardKeepsNonRepresentationHeaders(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(time.Second)), map[string]http.HandlerFunc{
			"GET /private": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Allow", "GET")
				w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
				w.Header().Set("Retry-After", "7")
				w.Header().Set("Etag", `"v1"`)
				http.Error(w, "who are you", http.StatusUnauthorized)
			},
		})
		srv := k.serve(t, h)
		r := get(t, srv.URL+"/private")
		wantProblem(t, r, 401, "unauthorized", map[string]any{"action": "reauthenticate"})
		if r.Header.Get("Allow") != "GET" || r.Header.Get("WWW-Authenticate") != `Bearer realm="api"` ||
			r.Header.Get("Retry-After") != "7" {
			t.Fatalf("headers lost: %v", r.Header)
		}
		if r.Header.Get("Etag") != "" {
			t.Fatal("representation header of the replaced body kept")
		}
	})
}

func TestGuardPassesHandlersProblemThrough(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		conflict := func(w http.ResponseWriter, r *http.Request) {
			k.writer.Write(w, r, problem.New(problem.Conflict).WithDetail("Order 42 was changed by someone else."))
		}
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{"PUT /orders": conflict})
		srv := k.serve(t, h)
		for _, accept := range []string{"", "application/problem+xml", "text/plain"} {
			req, _ := http.NewRequest(http.MethodPut, srv.URL+"/orders", nil)
			req.Header.Set("X-Request-Id", "fixed-id-0001")
			if accept != "" {
				req.Header.Set("Accept", accept)
			}
			got := do(t, req)
			// The same problem written without any middleware.
			rec := httptestRecorder()
			want := httptestRequest(http.MethodPut, "/orders", accept)
			k.writer.Write(rec, want, problem.New(problem.Conflict).WithDetail("Order 42 was changed by someone else."))
			if got.StatusCode != 409 || !strings.Contains(string(got.body), "Order 42 was changed") ||
				got.Header.Get("Content-Type") != rec.Header().Get("Content-Type") {
				t.Fatalf("Accept %q: %d %s %q", accept, got.StatusCode, got.Header.Get("Content-Type"), got.body)
			}
		}
		if n := len(k.logs.records(t)); n != 6 { // three written by the handler, three by the reference
			t.Fatalf("%d log records", n)
		}
	})
}

func TestGuardStreamsSuccess(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		partRead := make(chan struct{})
		h := rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(5*time.Second), WithBodyLimit(1<<20)), map[string]http.HandlerFunc{
			"GET /stream": func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, "part one\n")
				if err := http.NewResponseController(w).Flush(); err != nil {
					t.Errorf("Flush: %v", err)
				}
				select {
				case <-partRead:
				case <-time.After(5 * time.Second):
					t.Error("the client never saw part one before the handler finished")
				}
				w.(http.Flusher).Flush()
				io.Copy(w, strings.NewReader("part two\n")) // through io.ReaderFrom
			},
		})
		srv := k.serve(t, h)
		resp, err := http.Get(srv.URL + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		line, err := br.ReadString('\n')
		if err != nil || line != "part one\n" {
			t.Fatalf("%q %v", line, err)
		}
		close(partRead)
		rest, err := io.ReadAll(br)
		if err != nil || string(rest) != "part two\n" {
			t.Fatalf("%q %v", rest, err)
		}
		if k.logs.String() != "" {
			t.Fatalf("success logged: %s", k.logs)
		}
	})
}

func TestGuardHijack(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(time.Second))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nhijacked")
		rw.Flush()
	})))
	r := get(t, srv.URL)
	if r.StatusCode != 200 || string(r.body) != "hijacked" {
		t.Fatalf("%d %q", r.StatusCode, r.body)
	}
}

// A handler that writes nothing gets net/http's implicit 200.
func TestGuardImplicit200(t *testing.T) {
	k := newKit()
	srv := k.serve(t, k.carried(Guard()(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))))
	if r := get(t, srv.URL); r.StatusCode != 200 || len(r.body) != 0 {
		t.Fatalf("%d %q", r.StatusCode, r.body)
	}
}

// A writer with its own code header still gets its text-plane problems
// through the guard: the writer marks them, the guard does not guess.
func TestGuardPassesTextProblemWithCustomCodeHeader(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		k.writer = problem.NewWriter(problem.WithCodeHeader("X-Acme-Error"), problem.WithBrand("Acme"),
			problem.WithLogger(slog.New(slog.NewJSONHandler(k.logs, nil))))
		h := rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /locked": func(w http.ResponseWriter, r *http.Request) {
				k.writer.Write(w, r, problem.New(problem.Locked).WithDetail("Order 9 is being edited."))
			},
		})
		srv := k.serve(t, h)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/locked", nil)
		req.Header.Set("Accept", "text/plain")
		got := do(t, req)
		if got.StatusCode != 423 || !strings.HasPrefix(string(got.body), "Acme: locked: Order 9 is being edited.\n") ||
			got.Header.Get("X-Acme-Error") != "locked" {
			t.Fatalf("%d %v %q", got.StatusCode, got.Header, got.body)
		}
	})
}

// Guard keeps every header the replaced status's definition calls for,
// and a Retry-After sets retry_after_ms of a retryable problem to match.
func TestGuardKeepsHeadersStatusRequires(t *testing.T) {
	content := strings.NewReader("0123456789")
	cases := []struct {
		status  int
		code    string
		set     func(h http.Header)
		header  string
		want    string
		members map[string]any
	}{
		{401, "unauthorized", func(h http.Header) { h.Set("WWW-Authenticate", `Bearer realm="api"`) }, "WWW-Authenticate", `Bearer realm="api"`, nil},
		{407, "", func(h http.Header) { h.Set("Proxy-Authenticate", `Basic realm="proxy"`) }, "Proxy-Authenticate", `Basic realm="proxy"`, nil},
		{405, "method_not_allowed", func(h http.Header) { h.Set("Allow", "GET, HEAD") }, "Allow", "GET, HEAD", nil},
		{426, "", func(h http.Header) { h.Set("Upgrade", "HTTP/3.0") }, "Upgrade", "HTTP/3.0", nil},
		{429, "rate_limited", func(h http.Header) { h.Set("Retry-After", "3") }, "Retry-After", "3", map[string]any{"retry_after_ms": float64(3000)}},
		{503, "unavailable", func(h http.Header) { h.Set("Retry-After", "120") }, "Retry-After", "120", map[string]any{"retry_after_ms": float64(120000)}},
	}
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		routes := map[string]http.HandlerFunc{
			"GET /file": func(w http.ResponseWriter, r *http.Request) {
				http.ServeContent(w, r, "f.txt", time.Time{}, content)
			},
		}
		for _, c := range cases {
			routes["GET /"+strconv.Itoa(c.status)] = func(w http.ResponseWriter, r *http.Request) {
				c.set(w.Header())
				http.Error(w, "nope", c.status)
			}
		}
		srv := k.serve(t, rt.build(Stack(WithWriter(k.writer), WithRequestTimeout(time.Second)), routes))
		for _, c := range cases {
			r := get(t, srv.URL+"/"+strconv.Itoa(c.status))
			if r.StatusCode != c.status || r.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d: got %d %q", c.status, r.StatusCode, r.body)
			}
			m := members(t, r)
			if c.code != "" && m["code"] != c.code {
				t.Errorf("%d: code %v", c.status, m["code"])
			}
			if got := r.Header.Get(c.header); got != c.want {
				t.Errorf("%d: %s = %q, want %q", c.status, c.header, got, c.want)
			}
			for name, v := range c.members {
				if m[name] != v {
					t.Errorf("%d: %s = %v, want %v", c.status, name, m[name], v)
				}
			}
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/file", nil)
		req.Header.Set("Range", "bytes=100-200")
		r := do(t, req)
		m := members(t, r)
		if r.StatusCode != 416 || r.Header.Get("Content-Range") != "bytes */10" {
			t.Fatalf("416: %d Content-Range %q", r.StatusCode, r.Header.Get("Content-Range"))
		}
		if m["title"] != "Range Not Satisfiable" || !containsStr(m["detail"], "range") || m["status"] != float64(416) {
			t.Fatalf("416 problem: %s", r.body)
		}
	})
}

// The body Guard replaces reaches the problem's log record, through the
// log tier and truncated, so an operator sees what the handler said.
func TestGuardLogsReplacedBody(t *testing.T) {
	forEachRouter(t, func(t *testing.T, rt router) {
		k := newKit()
		long := strings.Repeat("é", 600)
		srv := k.serve(t, rt.build(Stack(WithWriter(k.writer)), map[string]http.HandlerFunc{
			"GET /fail": func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "query failed: password=hunter2\r\nlevel=INFO forged", 500)
			},
			"GET /long": func(w http.ResponseWriter, r *http.Request) { http.Error(w, long, 400) },
			"GET /none": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) },
		}))
		wantProblem(t, get(t, srv.URL+"/fail"), 500, "internal", nil)
		wantProblem(t, get(t, srv.URL+"/long"), 400, "bad_request", nil)
		wantProblem(t, get(t, srv.URL+"/none"), 404, "not_found", nil)
		recs := k.logs.records(t)
		if len(recs) != 3 {
			t.Fatalf("%d records: %v", len(recs), recs)
		}
		body, _ := recs[0]["handler_body"].(string)
		if !strings.Contains(body, "query failed") || strings.Contains(body, "hunter2") || strings.ContainsAny(body, "\r\n") {
			t.Errorf("handler_body %q", body)
		}
		body, _ = recs[1]["handler_body"].(string)
		if recs[1]["handler_body_truncated"] != true || len(body) > replacedBodyMax || !utf8.ValidString(body) || !strings.HasPrefix(body, "éé") {
			t.Errorf("long handler_body %q (%d bytes), truncated %v", body, len(body), recs[1]["handler_body_truncated"])
		}
		if _, ok := recs[2]["handler_body"]; ok {
			t.Errorf("a body-less response quoted a body: %v", recs[2])
		}
	})
}

// TestSwitchingProtocolsStartsTheResponse: net/http sends 101 as the final
// status of the HTTP/1 exchange (a WebSocket library calls WriteHeader(101)
// and then hijacks), not as an informational response. Taken for one, it
// left the response "not started": a deadline passing before the hijack
// wrote its problem into the 101 response and refused the hijack, and a
// panic in between logged a problem as written that never was.
func TestSwitchingProtocolsStartsTheResponse(t *testing.T) {
	for name, step := range map[string]func(){
		"slow handshake past the deadline": func() { time.Sleep(4 * testTimeout) },
		"quick handshake":                  func() {},
	} {
		t.Run(name, func(t *testing.T) {
			k := newKit()
			srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Upgrade", "websocket")
				w.Header().Set("Connection", "Upgrade")
				w.WriteHeader(http.StatusSwitchingProtocols)
				step()
				conn, rw, err := http.NewResponseController(w).Hijack()
				if err != nil {
					t.Errorf("hijack after 101: %v", err)
					return
				}
				defer conn.Close()
				line, _ := rw.ReadString('\n')
				rw.WriteString("echo " + line)
				rw.Flush()
			})))
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("X-Request-Id") == "" {
				t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
			}
			io.WriteString(conn, "ping\n")
			if got, _ := br.ReadString('\n'); got != "echo ping\n" {
				t.Fatalf("after the upgrade read %q", got)
			}
		})
	}
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusSwitchingProtocols)
		panic("handshake failed after the status")
	})))
	_, _ = http.Get(srv.URL)
	recs := waitRecords(t, k.logs, 1)
	if recs[0]["msg"] != "problem not written: response already started" || recs[0]["panic"] != "handshake failed after the status" {
		t.Fatalf("the log claims a problem the client never got: %v", recs[0])
	}
}

// TestFlushSendsTheReplacementWhole: a flush after a bare error status
// wrote the guard's problem into net/http's buffer and flushed nothing, so
// when the handler then aborted (httputil.ReverseProxy panics with
// http.ErrAbortHandler when an upstream's error body fails midway, as at
// the deadline) the client got a dropped connection and no problem at
// all. A flush means the client should have it now: the problem goes out
// whole, with its length, so an abort afterwards cannot truncate it.
func TestFlushSendsTheReplacementWhole(t *testing.T) {
	for _, status := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				w.(http.Flusher).Flush()
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer upstream.Close()
			target, _ := url.Parse(upstream.URL)
			proxy := httputil.NewSingleHostReverseProxy(target)
			proxy.ErrorLog = log.New(io.Discard, "", 0)
			k := newKit()
			srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(4*testTimeout))(proxy))
			resp, err := srv.Client().Get(srv.URL + "/relay")
			if err != nil {
				t.Fatalf("no response: %v", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("truncated problem %q: %v", body, err)
			}
			wantProblem(t, response{resp, body}, status, resp.Header.Get(problem.DefaultCodeHeader), nil)
		})
	}
}

// TestHijackedConnectionOutlivesTheDeadline: the request's deadline is for
// answering it; once a handler hijacks the connection (a WebSocket) there
// is nothing left to answer, yet its context still ended at the deadline,
// silently closing every WebSocket after the request timeout. Once
// hijacked, the request's context is its parent's again.
func TestHijackedConnectionOutlivesTheDeadline(t *testing.T) {
	k := newKit()
	srv := k.serve(t, Stack(WithWriter(k.writer), WithRequestTimeout(testTimeout))(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
		ctx := r.Context()
		for range 3 {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			if ctx.Err() != nil {
				rw.WriteString("context ended: " + ctx.Err().Error() + "\n")
			} else if _, ok := ctx.Deadline(); ok {
				rw.WriteString("context has the request's deadline\n")
			} else {
				rw.WriteString("echo " + line)
			}
			rw.Flush()
		}
	})))
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(conn)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v", err)
	}
	for i, wait := range []time.Duration{0, 2 * testTimeout, 4 * testTimeout} {
		time.Sleep(wait)
		msg := "message " + strconv.Itoa(i) + "\n"
		io.WriteString(conn, msg)
		if got, _ := br.ReadString('\n'); got != "echo "+msg {
			t.Fatalf("after %v read %q", wait, got)
		}
	}
}
