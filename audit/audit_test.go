package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/faultline-go/faultline/internal/testlog"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-go/faultline/audit"
	"github.com/faultline-go/faultline/internal/redistest"
	"github.com/faultline-go/faultline/middleware"
	"github.com/faultline-go/faultline/problem"
	"github.com/go-chi/chi/v5"
	"github.com/redis/go-redis/v9"
)

// app is a chi service behind Stack and the audit middleware; executed
// records the correlation ID of every request whose handler ran.
type app struct {
	srv      *httptest.Server
	logs     *testlog.Buffer
	mu       sync.Mutex
	executed []string
}

func newApp(t *testing.T, sink audit.Sink, opts ...audit.Option) *app {
	t.Helper()
	a := &app{logs: &testlog.Buffer{}}
	wr := problem.NewWriter(problem.WithLogger(slog.New(slog.NewJSONHandler(a.logs, nil))))
	r := chi.NewRouter()
	r.Use(middleware.Stack(middleware.WithWriter(wr)))
	r.Use(audit.Middleware(sink, append(opts, audit.WithPrincipal(func(r *http.Request) string { return r.Header.Get("X-User") }))...))
	r.Post("/v1/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.executed = append(a.executed, w.Header().Get("X-Request-Id"))
		a.mu.Unlock()
		if chi.URLParam(r, "id") == "crash" {
			panic("ledger corrupted at /srv/ledger.db")
		}
		if chi.URLParam(r, "id") == "denied" {
			problem.Write(w, r, problem.New(problem.PolicyDenied))
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	a.srv = httptest.NewServer(r)
	t.Cleanup(a.srv.Close)
	return a
}

func (a *app) post(t *testing.T, id string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, a.srv.URL+"/v1/orders/"+id, nil)
	req.Header.Set("X-User", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// openFileSink opens a file sink in the test's temporary directory,
// closed when the test ends (a test may close it earlier).
func openFileSink(t *testing.T) (*audit.FileSink, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	sink, err := audit.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sink.Close() })
	return sink, path
}

func readEvents(t *testing.T, path string) []audit.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []audit.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e audit.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func TestFailuresAreRecordedSuccessIsNot(t *testing.T) {
	sink, path := openFileSink(t)
	a := newApp(t, sink)
	if resp, _ := a.post(t, "o1"); resp.StatusCode != 201 {
		t.Fatalf("success: %d", resp.StatusCode)
	}
	resp, _ := a.post(t, "denied")
	events := readEvents(t, path)
	if len(events) != 1 {
		t.Fatalf("want one event (the denial), got %+v", events)
	}
	e := events[0]
	if e.Kind != audit.KindFailure || e.Status != 403 || e.Code != "policy_denied" || e.Route != "/v1/orders/{id}" ||
		e.Principal != "alice" || e.Method != "POST" || e.CorrelationID != resp.Header.Get("X-Request-Id") || e.CorrelationID == "" {
		t.Fatalf("event %+v", e)
	}
}

func TestStrictRejectsWhatItCannotAudit(t *testing.T) {
	sink, _ := openFileSink(t)
	a := newApp(t, sink, audit.Strict())
	if resp, _ := a.post(t, "o1"); resp.StatusCode != 201 {
		t.Fatalf("audited request: %d", resp.StatusCode)
	}
	sink.Close() // the audit path goes away
	resp, body := a.post(t, "o2")
	var p struct {
		Code, Outcome, Action string
		Retryable             bool
		Status                int
	}
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if resp.StatusCode != 503 || p.Code != "audit_unavailable" || p.Outcome != "not_started" || !p.Retryable || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("rejection: %d %s", resp.StatusCode, body)
	}
	if len(a.executed) != 1 {
		t.Fatalf("handler ran %d times; the unaudited request must not run", len(a.executed))
	}
	if !strings.Contains(a.logs.String(), `"code":"audit_unavailable"`) {
		t.Fatalf("rejection not logged:\n%s", a.logs)
	}
}

// Redis stalls in the middle of a load: every request whose handler ran has
// its attempt in the stream, every other request was rejected with
// audit_unavailable, and failures the stream missed are in the log.
func TestStrictUnderLoadWhileTheSinkStalls(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	defer client.Close()
	sink := audit.NewRedisStream(client, "audit", 0)
	a := newApp(t, sink, audit.Strict(), audit.WithSinkTimeout(100*time.Millisecond))

	var ok, rejected, other atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := "o"
				if (w+i)%3 == 0 {
					id = "denied"
				}
				resp, body := a.post(t, id)
				switch {
				case resp.StatusCode == 201 || resp.StatusCode == 403:
					ok.Add(1)
				case resp.StatusCode == 503 && bytes.Contains(body, []byte(`"code":"audit_unavailable"`)):
					rejected.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	srv.Pause()
	time.Sleep(500 * time.Millisecond)
	srv.Resume()
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()

	if ok.Load() == 0 || rejected.Load() == 0 || other.Load() != 0 {
		t.Fatalf("served %d, rejected %d, other %d", ok.Load(), rejected.Load(), other.Load())
	}
	entries, err := client.XRange(context.Background(), "audit", "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	attempts := map[string]bool{}
	for _, e := range entries {
		var ev audit.Event
		if err := json.Unmarshal([]byte(e.Values["event"].(string)), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Kind == audit.KindAttempt {
			attempts[ev.CorrelationID] = true
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range a.executed {
		if !attempts[id] {
			t.Fatalf("request %s ran without an audit attempt in the stream", id)
		}
	}
	if n := strings.Count(a.logs.String(), `"code":"audit_unavailable"`); int64(n) != rejected.Load() {
		t.Fatalf("%d rejections, %d logged", rejected.Load(), n)
	}
	t.Logf("served %d, rejected %d while the sink stalled", ok.Load(), rejected.Load())
}

// refusingSink is a store whose every write fails with an error that
// quotes its connection string, as database drivers' errors may.
type refusingSink struct{}

func (refusingSink) Write(context.Context, audit.Event) error {
	return errors.New("audit store: dial postgres://audit:hunter2-pw@10.0.0.9:5432/audit: connection refused")
}

// An event the store refused is logged whole for replay, but the store's
// error passes the log tier first, even behind a plain slog handler.
func TestLostEventLogKeepsNoCredential(t *testing.T) {
	a := newApp(t, refusingSink{})
	if resp, _ := a.post(t, "denied"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d", resp.StatusCode)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(a.logs.String(), "audit event not recorded") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	logs := a.logs.String()
	if !strings.Contains(logs, "audit event not recorded") || !strings.Contains(logs, "10.0.0.9:5432") || strings.Contains(logs, "hunter2-pw") {
		t.Fatalf("lost event log:\n%s", logs)
	}
}
