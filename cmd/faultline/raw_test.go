package main

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rawTarget is a server that writes its answers byte for byte, for the
// hostile shapes net/http would never send. answer gets the connection once
// the request's head is read, and returns the bytes it wrote.
type rawTarget struct {
	url string
	// written is the most one answer wrote.
	written atomic.Int64
}

func newRawTarget(t *testing.T, answer func(c net.Conn) int64) *rawTarget {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt := &rawTarget{url: "http://" + ln.Addr().String()}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				n := answer(c)
				for old := rt.written.Load(); n > old && !rt.written.CompareAndSwap(old, n); old = rt.written.Load() {
				}
			}()
		}
	}()
	return rt
}

// endless writes head, then fill until the peer stops reading.
func endless(c net.Conn, head, fill string) int64 {
	n, err := c.Write([]byte(head))
	total := int64(n)
	chunk := []byte(strings.Repeat(fill, (64<<10)/len(fill)))
	for err == nil {
		n, err = c.Write(chunk)
		total += int64(n)
	}
	return total
}

func failuresOf(rep *report, judgement string) []string {
	var whys []string
	for _, c := range rep.Checks {
		for _, r := range c.Requests {
			for _, f := range r.Failures {
				if f.Judgement == judgement {
					whys = append(whys, f.Why)
				}
			}
		}
	}
	return whys
}

// An answer whose head never ends is cut off like a body over -max-read:
// http.ReadResponse keeps the head in memory whole, so without a bound one
// request took gigabytes in seconds (net/http bounds trailers itself).
func TestEndlessHeadIsBounded(t *testing.T) {
	for name, answer := range map[string]func(c net.Conn) int64{
		"one endless header": func(c net.Conn) int64 {
			return endless(c, "HTTP/1.1 404 Not Found\r\nX-Endless: ", "a")
		},
		"endless headers": func(c net.Conn) int64 {
			return endless(c, "HTTP/1.1 404 Not Found\r\n", "X-Again: b\r\n")
		},
		"endless interim answers": func(c net.Conn) int64 {
			return endless(c, "", "HTTP/1.1 103 Early Hints\r\n\r\n")
		},
		"endless status line": func(c net.Conn) int64 {
			return endless(c, "HTTP/1.1 404 Not Found", " ")
		},
	} {
		t.Run(name, func(t *testing.T) {
			rt := newRawTarget(t, answer)
			start := time.Now()
			code, rep, stderr := probeRun(t, rt.url, "-checks", "unknown-route", "-rate", "500", "-request-timeout", "2s", "-timeout", "5s")
			if code != exitFail {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the run took %s", d)
			}
			// Loopback's socket buffers hold a few MiB; the rest was read.
			if n := rt.written.Load(); n > 16<<20 {
				t.Errorf("the probe read %d MiB of one answer", n>>20)
			}
			whys := failuresOf(rep, jAnswered)
			if len(whys) == 0 || !strings.Contains(whys[0], "run past 1048576 bytes") {
				t.Errorf("answered failures %q\n%s", whys, dump(rep))
			}
		})
	}
}

// notFound is a 404 problem+json answer with extra header lines (each
// ending in CR LF) and a body; with neither, every judgement of the
// rfc9457 contract accepts it for a GET on an unknown route.
func notFound(headers, body string) string {
	if body == "" {
		body = `{"type":"about:blank","title":"Not Found","status":404}`
	}
	return "HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nCache-Control: no-store\r\n" + headers +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// Interim answers (100 Continue, 103 Early Hints, any other 1xx) come before
// the final one, which is what the probe judges: a server that sends Early
// Hints was failed for answering 103.
func TestInterimAnswersAreSkipped(t *testing.T) {
	for _, interim := range []string{
		"HTTP/1.1 103 Early Hints\r\nLink: </app.css>; rel=preload\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.js>; rel=preload\r\n\r\nHTTP/1.1 199 Misc\r\n\r\n",
	} {
		rt := newRawTarget(t, func(c net.Conn) int64 {
			n, _ := c.Write([]byte(interim + notFound("", "")))
			return int64(n)
		})
		code, rep, stderr := probeRun(t, rt.url, "-checks", "unknown-route,accept,canary", "-rate", "500", "-request-timeout", "2s")
		if code != exitPass {
			t.Errorf("%q: exit %d, stderr %s\n%s", interim, code, stderr, dump(rep))
		}
	}
}

// Only a request holding bytes HTTP forbids in a field (CR, LF, NUL) may be
// refused by the HTTP layer without a problem. An application that refuses
// a long or non-ASCII X-Request-Id with a cacheable text/plain 400 breaks
// the contract, and a refusal that echoes a stack trace leaks: both were
// exempt (the exemption keyed on Connection: close, which the probe itself
// asks for on every request).
func TestRefusalExemptionOnlyForForbiddenBytes(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if len(id) > 200 || strings.ContainsFunc(id, func(c rune) bool { return c > 0x7e }) {
			http.Error(w, "invalid X-Request-Id", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"Not Found","status":404}`))
	})
	code, rep, stderr := probeRun(t, serveApp(t, mux), "-checks", "request-id", "-rate", "500")
	if code != exitFail {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, dump(rep))
	}
	if got := len(failuresOf(rep, jMediaType)); got != 2 {
		t.Errorf("%d media-type failures, want the long and the non-ASCII ID's\n%s", got, dump(rep))
	}

	leaky := newRawTarget(t, func(c net.Conn) int64 {
		body := "400 Bad Request\ngoroutine 12 [running]:\nnet/textproto.(*Reader).ReadMIMEHeader()\n\t/usr/local/go/src/net/textproto/reader.go:497 +0x2a\n"
		n, _ := c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n" + body))
		return int64(n)
	})
	code, rep, stderr = probeRun(t, leaky.url, "-checks", "request-id", "-rate", "500")
	if code != exitFail {
		t.Fatalf("leaky refusal: exit %d, stderr %s\n%s", code, stderr, dump(rep))
	}
	if got := len(failuresOf(rep, jLeak)); got != 5 {
		t.Errorf("%d leak failures, want one per request\n%s", got, dump(rep))
	}
}

// What the leak oracle finds in a body it finds in a header: an error
// answer whose problem is clean but whose headers carry a driver's error,
// a stack trace, a DSN or an internal address passed every check. A
// session cookie is the server's to set and is not a leak.
func TestLeaksInHeaders(t *testing.T) {
	leaks := map[string]string{
		"X-Debug":    `pq: duplicate key value violates unique constraint "users_email_key"`,
		"X-Trace":    "goroutine 1 [running]: main.main() /srv/app/main.go:42 +0x1d",
		"X-Upstream": "postgres://app:hunter2secret@db.internal:5432/app",
		"Via":        "1.1 10.20.30.40:3128",
		"X-Query":    "SELECT id, email FROM users WHERE email = $1",
	}
	for name, value := range leaks {
		rt := newRawTarget(t, func(c net.Conn) int64 {
			n, _ := c.Write([]byte(notFound(name+": "+value+"\r\nSet-Cookie: session=Zk3p9QvL2mX8; Path=/; HttpOnly\r\n", "")))
			return int64(n)
		})
		code, rep, stderr := probeRun(t, rt.url, "-checks", "unknown-route", "-rate", "500")
		if code != exitFail {
			t.Errorf("%s: exit %d, stderr %s\n%s", name, code, stderr, dump(rep))
			continue
		}
		whys := failuresOf(rep, jLeak)
		if len(whys) != 1 || !strings.HasPrefix(whys[0], "header "+name+" ") {
			t.Errorf("%s: leak failures %q", name, whys)
		}
	}
	clean := newRawTarget(t, func(c net.Conn) int64 {
		n, _ := c.Write([]byte(notFound("Set-Cookie: session=Zk3p9QvL2mX8; Path=/; HttpOnly\r\nVary: Accept\r\nDate: Mon, 07 Dec 2026 10:18:42 GMT\r\n", "")))
		return int64(n)
	})
	if code, rep, _ := probeRun(t, clean.url, "-checks", "unknown-route", "-rate", "500"); code != exitPass {
		t.Errorf("clean headers: exit %d\n%s", code, dump(rep))
	}
}

// A problem+json body is JSON exchanged between systems, so UTF-8 (RFC 8259
// §8.1). encoding/json turns invalid bytes into U+FFFD without a word, so
// a body a strict client refuses whole passed the schema judgement.
func TestProblemJSONMustBeUTF8(t *testing.T) {
	for _, body := range []string{
		"{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"caf\xe9\"}",
		"{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"x\xff\":1}",
		"{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"errors\":[{\"detail\":\"\xed\xa0\x80\"}]}",
		"{\"type\":\"about:blank\",\"title\":\"Not Found\",\"status\":404,\"detail\":\"\xf0\x9f\x98\"}",
	} {
		rt := newRawTarget(t, func(c net.Conn) int64 {
			n, _ := c.Write([]byte(notFound("", body)))
			return int64(n)
		})
		code, rep, _ := probeRun(t, rt.url, "-checks", "unknown-route", "-rate", "500")
		if whys := failuresOf(rep, jSchema); code != exitFail || len(whys) != 1 || whys[0] != "the body is not valid UTF-8" {
			t.Errorf("%q: exit %d, schema failures %q", body, code, whys)
		}
	}
	if _, why := parseProblemJSON([]byte(`{"type":"about:blank","title":"Not Found","status":404,"detail":"café ✓ 😀"}`)); len(why) > 0 {
		t.Errorf("valid UTF-8: %q", why)
	}
	if _, why := parseProblemXML([]byte("<problem xmlns=\"urn:ietf:rfc:7807\"><title>caf\xe9</title></problem>")); len(why) == 0 {
		t.Error("the XML decoder took invalid UTF-8")
	}
}

// An https target the probe cannot speak TLS with (a certificate it does
// not trust, plain HTTP on the port, a handshake that never ends) cannot be
// reached: exit 3, as for a closed port. It was exit 1, a report failing
// every check of an API none of whose answers had been read.
func TestTLSFailureIsUnreachable(t *testing.T) {
	untrusted := httptest.NewUnstartedServer(http.NotFoundHandler())
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0)
	untrusted.StartTLS()
	t.Cleanup(untrusted.Close)
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	silent := newRawTarget(t, func(c net.Conn) int64 {
		time.Sleep(3 * time.Second)
		return 0
	})
	for _, tc := range []struct{ url, why string }{
		{untrusted.URL, "certificate"},
		{strings.Replace(plain.URL, "http://", "https://", 1), "tls"},
		{strings.Replace(silent.url, "http://", "https://", 1), "deadline exceeded"},
	} {
		start := time.Now()
		code, _, stderr := probeRun(t, tc.url, "-request-timeout", "1s")
		if code != exitUnreachable || !strings.Contains(stderr, "cannot be reached") || !strings.Contains(stderr, tc.why) {
			t.Errorf("%s: exit %d, stderr %q", tc.url, code, stderr)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %s", tc.url, d)
		}
	}
}

// An -openapi URL the target answers without the document (a 404, a
// document past -max-read) is a command line to fix, exit 2. It was exit 3,
// "cannot be reached", for a target that had just answered.
func TestOpenAPIDocumentMissingIsUsage(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /big.json", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"paths":{"/a":{"get":{}}},"x":"` + strings.Repeat("x", 4096) + `"}`))
	})
	mux.HandleFunc("GET /moved.json", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/big.json", http.StatusMovedPermanently)
	})
	base := serveApp(t, mux)
	for _, tc := range []struct{ path, why string }{
		{"/missing.json", "answered 404, not the document"},
		{"/moved.json", "answered 301, not the document"},
		{"/big.json", "is longer than -max-read (1024 bytes)"},
	} {
		code, _, stderr := probeRun(t, base, "-openapi", base+tc.path, "-max-read", "1024")
		if code != exitUsage || !strings.Contains(stderr, tc.why) {
			t.Errorf("%s: exit %d, stderr %q", tc.path, code, stderr)
		}
	}
	if code, _, stderr := probeRun(t, base, "-openapi", base+"/big.json", "-checks", "unknown-route"); code == exitUsage || code == exitUnreachable {
		t.Errorf("a document within -max-read: exit %d, stderr %q", code, stderr)
	}
}

// A member or header whose whole value is a URL had its host skipped by
// the leak oracle, meant for a problem's own links, so an upstream's
// private address passed as long as it came as a URL. The host is now
// skipped only for type (the documentation host the server chose) and for
// the target's own host.
func TestPrivateHostsInURLsLeak(t *testing.T) {
	for _, tc := range []struct {
		header, body string
		leaks        bool
	}{
		{"", `{"title":"Not Found","upstream":"http://10.0.3.7:8080/v1/items"}`, true},
		{"", `{"title":"Not Found","detail":"http://192.168.1.20/internal/items?id=7"}`, true},
		{"", `{"title":"Not Found","instance":"https://172.20.0.4/v1/items/7"}`, true},
		{"X-Backend: http://172.16.4.2:9000/orders\r\n", "", true},
		{"", `{"type":"http://10.0.0.9/errors/not-found","title":"Not found"}`, false},
		{"", `{"title":"Not Found","help":"https://docs.example.com/errors/not-found"}`, false},
		{"", `{"$schema":"http://TARGET/schemas/Error.json","title":"Not Found","instance":"http://TARGET/v1/items/7"}`, false},
	} {
		rt := newRawTarget(t, func(c net.Conn) int64 {
			n, _ := c.Write([]byte(notFound(tc.header, strings.ReplaceAll(tc.body, "TARGET", c.LocalAddr().String()))))
			return int64(n)
		})
		code, rep, _ := probeRun(t, rt.url, "-checks", "unknown-route", "-rate", "500")
		if whys := failuresOf(rep, jLeak); tc.leaks != (code == exitFail && len(whys) == 1) || !tc.leaks && code != exitPass {
			t.Errorf("%s%s: exit %d, leak failures %q\n%s", tc.header, tc.body, code, whys, dump(rep))
		}
	}
}
