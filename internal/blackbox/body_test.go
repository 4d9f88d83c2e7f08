package blackbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawStream sends head, then writes chunks of the body one by one with a
// pause between them until the server answers or the chunks run out, and
// returns the answer with the time it took to arrive.
func (a *app) rawStream(head string, chunks []string, pause time.Duration) (answer, time.Duration) {
	a.t.Helper()
	conn, err := net.DialTimeout("tcp", a.srv.Listener.Addr().String(), time.Second)
	if err != nil {
		a.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := io.WriteString(conn, head); err != nil {
		a.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		for _, c := range chunks {
			select {
			case <-done:
				return
			case <-time.After(pause):
			}
			if _, err := io.WriteString(conn, c); err != nil {
				return
			}
		}
	}()
	defer close(done)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		a.t.Fatalf("no answer: %v", err)
	}
	elapsed := time.Since(start)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	ans := answer{status: res.StatusCode, header: res.Header, body: body}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(body, &ans.doc); err != nil {
			a.t.Fatalf("body is not JSON: %v\n%s", err, body)
		}
	}
	return ans, elapsed
}

func chunked(parts ...string) []string {
	out := make([]string, 0, len(parts)+1)
	for _, p := range parts {
		out = append(out, fmt.Sprintf("%x\r\n%s\r\n", len(p), p))
	}
	return append(out, "0\r\n\r\n")
}

// A client that uploads slowly gets the timeout at the deadline, not when
// it finishes, whether it declared a length or streams chunks, and whether
// the handler reads through bind or by itself.
func TestSlowUploadsGetTheTimeoutAtTheDeadline(t *testing.T) {
	pieces := make([]string, 40)
	for i := range pieces {
		pieces[i] = " "
	}
	// 40 pauses of 100ms: the upload would end at 4s, the deadline is 300ms.
	const pause = 100 * time.Millisecond
	for name, newApp := range apps(t, false) {
		for _, path := range []string{"/v1/orders", "/upload"} {
			for _, enc := range []string{"length", "chunked"} {
				t.Run(name+path+"/"+enc, func(t *testing.T) {
					t.Parallel()
					a := newApp(t)
					head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
					body := pieces
					if enc == "length" {
						head += fmt.Sprintf("Content-Length: %d\r\n\r\n", len(pieces))
					} else {
						head += "Transfer-Encoding: chunked\r\n\r\n"
						body = chunked(pieces...)
					}
					ans, took := a.rawStream(head, body, pause)
					if took > 2*time.Second {
						t.Errorf("the answer came after %v, the deadline is %v", took, reqTimeout)
					}
					a.checkContract("slow upload", ans, 503, "timeout")
					if ans.doc["retryable"] != false || ans.doc["action"] != "verify" || ans.doc["outcome"] != "unknown" {
						t.Errorf("a write cut by the timeout without a key: %s", ans.body)
					}
				})
			}
		}
	}
}

// A chunked body over the limit is refused as request_too_large, whether
// the handler decodes it or reads it raw, also when the excess comes late.
func TestChunkedBodyOverTheLimit(t *testing.T) {
	big := strings.Repeat("y", 600)
	for name, newApp := range apps(t, false) {
		for _, path := range []string{"/v1/orders", "/upload"} {
			t.Run(name+path, func(t *testing.T) {
				t.Parallel()
				a := newApp(t)
				head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
				ans, _ := a.rawStream(head, chunked(`{"sku":"`, big, big, big, `","quantity":1}`), time.Millisecond)
				a.checkContract("chunked over the limit", ans, 413, "request_too_large")
			})
		}
	}
}

// A declared length over the limit is refused before the body is read,
// and Expect: 100-continue does not make the client send it.
func TestDeclaredLengthOverTheLimitWithExpectContinue(t *testing.T) {
	for name, newApp := range apps(t, false) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newApp(t)
			head := fmt.Sprintf("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 50<<20)
			ans, _ := a.rawStream(head, nil, 0)
			a.checkContract("declared length over the limit", ans, 413, "request_too_large")
		})
	}
}

// trickle is a request body that sends one byte per pause.
type trickle struct {
	left  int
	pause time.Duration
}

func (tr *trickle) Read(p []byte) (int, error) {
	if tr.left == 0 {
		return 0, io.EOF
	}
	time.Sleep(tr.pause)
	tr.left--
	p[0] = ' '
	return 1, nil
}

// Over HTTP/2 every failure class keeps the contract too, and a slow
// upload gets its timeout at the deadline (net/http's HTTP/2 server has no
// body lock, but the read deadline must still end the handler's read).
func TestEveryFailureClassOverHTTP2(t *testing.T) {
	a := newChiAppHTTP2(t)
	for _, f := range failures {
		ans := a.request(f.method, f.path, f.body, f.header...)
		a.checkContract("HTTP/2 "+f.name, ans, f.status, f.code)
	}
	req, err := http.NewRequest("POST", a.srv.URL+"/upload", &trickle{left: 40, pause: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ans := a.do(req)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("HTTP/2 slow upload answered after %v, the deadline is %v", took, reqTimeout)
	}
	a.checkContract("HTTP/2 slow upload", ans, 503, "timeout")
}
