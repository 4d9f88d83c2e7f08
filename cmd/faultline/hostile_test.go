package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hostile is a target that misbehaves in one way per first path segment,
// so each run points the probe's base URL at one behaviour.
type hostile struct {
	srv *httptest.Server
	// other is the host /redirect/ sends the probe to; it must never be
	// contacted.
	other    *httptest.Server
	otherHit atomic.Int64
	// hugeWritten is the most any one request got out of /huge/'s 32 MB
	// answer (more than 10 MB, and more than loopback's socket buffers
	// hold, so a probe that read it whole would let all of it through).
	hugeWritten atomic.Int64
}

const hugeSize = 32 << 20

func newHostile(t *testing.T) *hostile {
	h := &hostile{}
	h.other = httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { h.otherHit.Add(1) }))
	t.Cleanup(h.other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		// Everything the request said, back in the answer, with a stack
		// trace for good measure.
		var seen []string
		for name, values := range r.Header {
			seen = append(seen, name+"="+strings.Join(values, ","))
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Echo-Authorization", r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"type": "https://example.com/not-found", "title": "Not found", "status": 404,
			"detail":         "no route " + r.URL.String() + " for " + strings.Join(seen, "; "),
			"trace":          "goroutine 7 [running]:\nmain.handler()\n\t/srv/app/handler.go:42 +0x1d",
			"correlation_id": r.Header.Get("X-Request-Id"),
		})
	})
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, h.other.URL+"/elsewhere", http.StatusFound)
	})
	mux.HandleFunc("/trickle/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		for range 200 {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("/hang/", func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/huge/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		chunk := []byte(`{"type":"about:blank","title":"Not Found","status":404,"detail":"` + strings.Repeat("x", 64<<10))
		var written int64
		defer func() {
			for old := h.hugeWritten.Load(); written > old && !h.hugeWritten.CompareAndSwap(old, written); old = h.hugeWritten.Load() {
			}
		}()
		for range (hugeSize) / len(chunk) {
			n, err := w.Write(chunk)
			written += int64(n)
			if err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/drop/", func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func TestHostileTarget(t *testing.T) {
	h := newHostile(t)
	bounds := []string{"-rate", "500", "-request-timeout", "500ms", "-timeout", "10s"}
	cases := []struct {
		mode      string
		checks    string
		judgement string
		why       string
	}{
		{"echo", "canary", jCanary, "the answer carries the vendor token, the DSN's password, the private address"},
		{"echo", "request-id", jHostileID, "the body echoes the hostile X-Request-Id"},
		{"echo", "unknown-route", jLeak, `/trace "goroutine 7 [running]:\nmain.handler()`},
		{"redirect", "unknown-route", jRedirect, "302 redirect to \"" + h.other.URL + "/elsewhere\" (another origin), not followed"},
		{"trickle", "unknown-route", jAnswered, "the body did not end within"},
		{"hang", "unknown-route", jAnswered, "no complete answer within 500ms"},
		{"huge", "unknown-route", jBounded, "the body is longer than -max-read 1048576 bytes"},
		{"drop", "unknown-route", jAnswered, "the connection was closed without an answer"},
	}
	for _, tc := range cases {
		t.Run(tc.mode+"/"+tc.checks, func(t *testing.T) {
			start := time.Now()
			code, rep, stderr := probeRun(t, h.srv.URL+"/"+tc.mode, append(slices.Clone(bounds), "-checks", tc.checks)...)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the run took %s", d)
			}
			if code != exitFail {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitFail, stderr)
			}
			var whys []string
			for _, c := range rep.Checks {
				for _, r := range c.Requests {
					for _, f := range r.Failures {
						if f.Judgement == tc.judgement {
							whys = append(whys, f.Why)
						}
					}
				}
			}
			if !slices.ContainsFunc(whys, func(w string) bool { return strings.Contains(w, tc.why) }) {
				t.Errorf("no %s failure saying %q; report:\n%s", tc.judgement, tc.why, dump(rep))
			}
		})
	}
	if n := h.otherHit.Load(); n != 0 {
		t.Errorf("the redirect's other origin was contacted %d times", n)
	}
	if n := h.hugeWritten.Load(); n >= hugeSize-64<<10 {
		t.Errorf("the huge answer was read whole (%d bytes written)", n)
	}
}

// The -openapi URL is on the target's origin or the run does not start.
func TestOpenAPIOnAnotherOriginIsRefused(t *testing.T) {
	h := newHostile(t)
	code, _, stderr := probeRun(t, h.srv.URL, "-openapi", h.other.URL+"/openapi.json")
	if code != exitUsage || !strings.Contains(stderr, "is not on the target's origin") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if n := h.otherHit.Load(); n != 0 {
		t.Errorf("the other origin was contacted %d times", n)
	}
}

func TestExitCodes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"probe", closed}, exitUnreachable},
		{[]string{"probe"}, exitUsage},
		{[]string{"probe", "ftp://example.com"}, exitUsage},
		{[]string{"probe", "-checks", "no-such-check", closed}, exitUsage},
		{[]string{"probe", "-rate", "0", closed}, exitUsage},
		{[]string{"probe", "-contract", "zalando", closed}, exitUsage},
		{[]string{"serve", closed}, exitUsage},
		{[]string{}, exitUsage},
	} {
		var out, errOut strings.Builder
		if got := run(t.Context(), tc.args, &out, &errOut); got != tc.want {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, got, tc.want, errOut.String())
		}
	}
}

// The run keeps no answer's body once it is judged. Every body was held
// until the end, so a target whose OpenAPI document lists many routes and
// whose answers fill -max-read took -max-read per request sent: 600
// answers of 1 MiB held 880 MB. Now what is held is one body per request
// in flight (here 200 answers of 1 MiB).
func TestBodiesAreNotKeptForTheRun(t *testing.T) {
	var paths []string
	for i := range 100 {
		paths = append(paths, fmt.Sprintf(`"/r%d":{"post":{}}`, i))
	}
	doc := `{"paths":{` + strings.Join(paths, ",") + `}}`
	big := []byte(`{"title":"Method Not Allowed","detail":"` + strings.Repeat("x", 1<<20))
	base := serveApp(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/openapi.json" {
			_, _ = w.Write([]byte(doc))
			return
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		_, _ = w.Write(big)
	}))
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	code, rep, stderr := probeRun(t, base, "-openapi", base+"/openapi.json", "-rate", "2000", "-concurrency", "8", "-checks", "method-not-allowed")
	close(done)
	wg.Wait()
	if code != exitFail || len(rep.Checks) != 1 || len(rep.Checks[0].Requests) != 200 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if got := len(failuresOf(rep, jBounded)); got != 200 {
		t.Errorf("%d bounded failures, want 200", got)
	}
	t.Logf("heap in use peaked at %d MiB", peak.Load()>>20)
	if p := peak.Load(); p > 120<<20 {
		t.Errorf("heap in use peaked at %d MiB", p>>20)
	}
}
