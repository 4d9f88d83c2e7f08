package serve

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewServerDefaults(t *testing.T) {
	hs := NewServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout != DefaultReadHeaderTimeout || hs.ReadTimeout != DefaultReadTimeout ||
		hs.IdleTimeout != DefaultIdleTimeout || hs.MaxHeaderBytes != DefaultMaxHeaderBytes ||
		hs.WriteTimeout != 0 || hs.ErrorLog == nil {
		t.Fatalf("%+v", hs)
	}
	hs = NewServer(nil, WithReadHeaderTimeout(time.Second), WithReadTimeout(2*time.Second),
		WithWriteTimeout(3*time.Second), WithIdleTimeout(4*time.Second), WithMaxHeaderBytes(8<<10),
		WithReadTimeout(0), WithMaxHeaderBytes(-1))
	if hs.ReadHeaderTimeout != time.Second || hs.ReadTimeout != 2*time.Second || hs.WriteTimeout != 3*time.Second ||
		hs.IdleTimeout != 4*time.Second || hs.MaxHeaderBytes != 8<<10 {
		t.Fatalf("%+v", hs)
	}
}

// net/http's own complaints reach the structured log, at Warn, marked as
// coming from net/http.
func TestErrorLogGoesToSlog(t *testing.T) {
	wr, sink := newWriter()
	hs := NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		w.WriteHeader(http.StatusOK) // net/http logs the superfluous call
	}), WithWriter(wr))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var found bool
	for _, rec := range sink.records(t) {
		msg, _ := rec["msg"].(string)
		if strings.Contains(msg, "superfluous response.WriteHeader") {
			found = rec["level"] == "WARN" && rec["source"] == "net/http"
		}
	}
	if !found {
		t.Fatalf("records: %v", sink.records(t))
	}
}

// Headers over the cap get net/http's 431 after at most the cap is read,
// so a crowd of clients with 1 MiB headers costs the cap each, not 1 MiB.
func TestHeaderCap(t *testing.T) {
	hs := NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("a request over the header cap reached the handler")
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	const clients, headerSize = 20, 1 << 20
	request := []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", headerSize) + "\r\n\r\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	statuses := make(chan string, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- statusOf(ln.Addr().String(), request)
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	close(statuses)
	for s := range statuses {
		if !strings.HasPrefix(s, "HTTP/1.1 431 ") {
			t.Errorf("status line %q, want 431", s)
		}
	}
	// Measured here: about 350 KiB a client with the cap, 6 MiB a client
	// with net/http's 1 MiB default (which accepts these headers).
	const perClient = 512 << 10
	if grown := after.TotalAlloc - before.TotalAlloc; grown > clients*perClient {
		t.Errorf("%d clients allocated %d KiB, want under %d KiB", clients, grown>>10, clients*perClient>>10)
	}
}

// statusOf sends request on a raw connection, as a client that does not
// wait to be refused, and returns the status line it gets.
func statusOf(addr string, request []byte) string {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err.Error()
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = conn.Write(request) }()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err.Error()
	}
	return string(bytes.TrimSpace([]byte(line)))
}
