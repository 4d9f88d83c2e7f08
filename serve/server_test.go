package serve

import (
	"bufio"
	"bytes"
	"context"
	"log"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/problem"
)

func TestNewServerDefaults(t *testing.T) {
	hs := NewServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout != DefaultReadHeaderTimeout || hs.ReadTimeout != DefaultReadTimeout ||
		hs.IdleTimeout != DefaultIdleTimeout || hs.MaxHeaderBytes != DefaultMaxHeaderBytes ||
		hs.WriteTimeout != 0 || hs.ErrorLog == nil {
		t.Fatalf("%+v", hs)
	}
}

// panicky panics outside any recover, which net/http reports in its error
// log.
var panicky = http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("ledger offline") })

// netRecords serves hs (through Run with wr when run is set) for one
// request to panicky and returns net/http's report of the panic as logged
// to sink.
func netRecords(t *testing.T, hs *http.Server, run bool, wr *problem.Writer, sink *logSink) []map[string]any {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if run {
		go func() { done <- Run(ctx, hs, ln, WithWriter(wr), WithShutdownBudget(time.Second)) }()
	} else {
		go func() { done <- hs.Serve(ln) }()
	}
	if resp, err := http.Get("http://" + ln.Addr().String()); err == nil {
		t.Errorf("a panicking handler answered %d", resp.StatusCode)
		resp.Body.Close()
	}
	cancel()
	if !run {
		_ = hs.Close()
	}
	<-done
	var out []map[string]any
	for _, rec := range sink.records(t) {
		if msg, _ := rec["msg"].(string); strings.Contains(msg, "panic serving") && strings.Contains(msg, "ledger offline") {
			out = append(out, rec)
		}
	}
	return out
}

// net/http's own complaints reach the structured log, at Warn, marked as
// coming from net/http: Run's writer's logger, or problem.Default()'s when
// the server runs without Run.
func TestErrorLogGoesToSlog(t *testing.T) {
	wr, sink := newWriter()
	recs := netRecords(t, NewServer(panicky), true, wr, sink)
	if len(recs) != 1 || recs[0]["level"] != "WARN" || recs[0]["source"] != "net/http" ||
		strings.HasSuffix(recs[0]["msg"].(string), "\n") {
		t.Fatalf("records under Run: %v", sink.records(t))
	}

	// The default is looked up at each record: a server built before the
	// service set its default writer still logs through it.
	hs := NewServer(panicky)
	def, defSink := newWriter()
	old := problem.Default()
	problem.SetDefault(def)
	t.Cleanup(func() { problem.SetDefault(old) })
	if recs := netRecords(t, hs, false, nil, defSink); len(recs) != 1 || recs[0]["source"] != "net/http" {
		t.Fatalf("records of the default writer: %v", defSink.records(t))
	}
}

// An ErrorLog the caller set is theirs: Run leaves it alone.
func TestRunKeepsCallersErrorLog(t *testing.T) {
	wr, sink := newWriter()
	own := &logSink{}
	hs := NewServer(panicky)
	hs.ErrorLog = log.New(own, "own: ", 0)
	if recs := netRecords(t, hs, true, wr, sink); len(recs) != 0 {
		t.Fatalf("the writer's logger got %v", recs)
	}
	if got := own.buf.String(); !strings.HasPrefix(got, "own: ") || !strings.Contains(got, "ledger offline") {
		t.Fatalf("own log: %q", got)
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
