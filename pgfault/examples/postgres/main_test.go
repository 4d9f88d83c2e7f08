package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/faultline-go/faultline/pgfault/internal/pgtest"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/jackc/pgx/v5/pgxpool"
)

// testConfig makes the limits small enough to hit within a test: two
// slow reports hold both connections for a second, longer than a normal
// request may wait for one; a move pauses long enough to be terminated in
// the middle, and short enough that a deadlock resolves within its budget.
var testConfig = config{
	MaxConns:         2,
	StatementTimeout: time.Second,
	QueryTimeout:     400 * time.Millisecond,
	ReportTimeout:    5 * time.Second,
	MovePause:        150 * time.Millisecond,
}

// hidden lists what no response may contain: the schema's names, SQL,
// values the scenarios send, and the server's address.
var hidden = []string{
	"items", "item_labels", "qty", "label", "qty_not_negative", "items_pkey",
	"SELECT", "INSERT", "UPDATE", "select", "insert", "update", "SQLSTATE", "pg_",
	"not-a-number", "9999999999", "much-too-long-label", "127.0.0.1", "app@",
}

type service struct {
	url   string
	admin *pgxpool.Pool
	mu    sync.Mutex
	logs  bytes.Buffer
}

func (s *service) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

// record returns the log record of the request with correlation id.
func (s *service) record(t *testing.T, id string) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(s.logs.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec["correlation_id"] == id && rec["msg"] == "problem" {
			return rec
		}
	}
	t.Fatalf("no problem record with correlation_id %s", id)
	return nil
}

func start(t *testing.T) *service {
	t.Helper()
	pg := pgtest.Start(t)
	ctx := context.Background()
	s := &service{}
	admin, err := pgxpool.New(ctx, pg.DSN(pgtest.Superuser))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	s.admin = admin
	pool, err := openPool(ctx, pg.DSN(pgtest.App), testConfig)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(correlation.NewHandler(sanitize.NewLogHandler(slog.NewJSONHandler(s, nil))))
	srv := httptest.NewServer(newRouter(pool, logger, testConfig))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

type response struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

func (s *service) do(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			t.Fatalf("problem body is not JSON: %v\n%s", err, raw)
		}
	}
	return r
}

// want is what a scenario's response must say.
type want struct {
	status    int
	code      string
	retryable bool
	outcome   string
	action    string
	sqlstate  string
}

// check asserts the response, the absence of anything hidden, and the
// evidence in the log record with the same correlation ID.
func (s *service) check(t *testing.T, r response, w want) {
	t.Helper()
	if r.status != w.status {
		t.Fatalf("status %d, want %d: %s", r.status, w.status, r.raw)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("Content-Type %q", ct)
	}
	for name, v := range map[string]any{"code": w.code, "retryable": w.retryable, "status": float64(w.status)} {
		if r.body[name] != v {
			t.Errorf("%s = %#v, want %#v", name, r.body[name], v)
		}
	}
	if w.outcome != "" && r.body["outcome"] != w.outcome {
		t.Errorf("outcome = %v, want %s", r.body["outcome"], w.outcome)
	}
	if w.action != "" && r.body["action"] != w.action {
		t.Errorf("action = %v, want %s", r.body["action"], w.action)
	}
	if r.header.Get("X-Error-Code") != w.code {
		t.Errorf("X-Error-Code %q", r.header.Get("X-Error-Code"))
	}
	// instance is the request's own path, which the client sent.
	public := make(map[string]any, len(r.body))
	for k, v := range r.body {
		if k != "instance" {
			public[k] = v
		}
	}
	text, _ := json.Marshal(public)
	for _, h := range hidden {
		if strings.Contains(string(text), h) {
			t.Errorf("response contains %q: %s", h, text)
		}
	}
	id := r.header.Get("X-Request-Id")
	if id == "" || r.body["correlation_id"] != id {
		t.Fatalf("correlation: header %q, body %v", id, r.body["correlation_id"])
	}
	rec := s.record(t, id)
	db, _ := rec["db"].(map[string]any)
	if db == nil {
		t.Fatalf("no db evidence in %v", rec)
	}
	if w.sqlstate != "" && db["sqlstate"] != w.sqlstate {
		t.Errorf("log sqlstate %v, want %s", db["sqlstate"], w.sqlstate)
	}
	if _, ok := db["pool"].(map[string]any); !ok {
		t.Errorf("log lacks the pool's state: %v", db)
	}
}

func (s *service) qty(t *testing.T, id int) int {
	t.Helper()
	var n int
	if err := s.admin.QueryRow(context.Background(), "SELECT qty FROM items WHERE id = $1", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (s *service) admin1(t *testing.T, q string) {
	t.Helper()
	if _, err := s.admin.Exec(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

// waitSleeping waits until n backends of the app role sleep in a report.
func (s *service) waitSleeping(t *testing.T, n int) {
	t.Helper()
	for range 500 {
		var got int
		if err := s.admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE usename = 'app' AND wait_event = 'PgSleep'`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d reports never held the pool", n)
}

// terminateMove ends the backend of a move while it pauses between its two
// updates, before it commits.
func (s *service) terminateMove() <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx := context.Background()
		for range 300 {
			var pid uint32
			if s.admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity
				WHERE usename = 'app' AND wait_event = 'PgSleep' AND query LIKE 'SELECT pg_sleep%'`).Scan(&pid) == nil {
				_, err := s.admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid)
				done <- err
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		done <- fmt.Errorf("no move to terminate")
	}()
	return done
}

func TestScenariosOverHTTP(t *testing.T) {
	s := start(t)
	for _, body := range []string{
		`{"id": 1, "label": "widget", "qty": 50}`,
		`{"id": 2, "label": "gadget", "qty": 50}`,
	} {
		if r := s.do(t, "POST", "/items", body); r.status != http.StatusCreated {
			t.Fatalf("seed: %d %s", r.status, r.raw)
		}
	}

	t.Run("invalid type", func(t *testing.T) {
		r := s.do(t, "POST", "/items", `{"id": "not-a-number", "label": "x", "qty": 1}`)
		s.check(t, r, want{status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22P02"})
	})
	t.Run("out of range", func(t *testing.T) {
		r := s.do(t, "POST", "/items", `{"id": 3, "label": "x", "qty": 9999999999}`)
		s.check(t, r, want{status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22003"})
	})
	t.Run("value too long", func(t *testing.T) {
		r := s.do(t, "POST", "/items", `{"id": 3, "label": "much-too-long-label", "qty": 1}`)
		s.check(t, r, want{status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22001"})
	})
	t.Run("check violation", func(t *testing.T) {
		r := s.do(t, "POST", "/items", `{"id": 3, "label": "x", "qty": -1}`)
		s.check(t, r, want{status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "23514"})
	})
	t.Run("unique violation", func(t *testing.T) {
		r := s.do(t, "POST", "/items", `{"id": 1, "label": "again", "qty": 1}`)
		s.check(t, r, want{status: 409, code: "conflict", outcome: "not_committed", sqlstate: "23505"})
	})
	t.Run("not found", func(t *testing.T) {
		r := s.do(t, "GET", "/items/404", "")
		s.check(t, r, want{status: 404, code: "not_found"})
	})
	t.Run("statement_timeout", func(t *testing.T) {
		r := s.do(t, "GET", "/report", "")
		s.check(t, r, want{status: 503, code: "timeout", retryable: true, outcome: "not_committed", sqlstate: "57014"})
	})
	t.Run("pool exhausted", func(t *testing.T) {
		var wg sync.WaitGroup
		for range testConfig.MaxConns {
			wg.Go(func() { s.do(t, "GET", "/report", "") })
		}
		s.waitSleeping(t, int(testConfig.MaxConns))
		r := s.do(t, "GET", "/items/1", "")
		wg.Wait()
		s.check(t, r, want{status: 503, code: "unavailable", retryable: true, outcome: "not_started", action: "retry"})
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After %q, want 1 (the short retry, rounded up)", r.header.Get("Retry-After"))
		}
	})
	t.Run("deadlock between two moves", func(t *testing.T) {
		// Two opposite moves deadlock when their pauses overlap; on a
		// loaded machine one may finish before the other starts, so try
		// a few times.
		for attempt := 1; ; attempt++ {
			var (
				wg        sync.WaitGroup
				responses [2]response
			)
			for i, body := range []string{`{"from": 1, "to": 2, "qty": 1}`, `{"from": 2, "to": 1, "qty": 1}`} {
				wg.Go(func() { responses[i] = s.do(t, "POST", "/moves", body) })
			}
			wg.Wait()
			won, lost := responses[0], responses[1]
			if won.status != http.StatusNoContent {
				won, lost = lost, won
			}
			if won.status != http.StatusNoContent {
				t.Fatalf("neither move succeeded: %d %s / %d %s", won.status, won.raw, lost.status, lost.raw)
			}
			if lost.status == http.StatusNoContent && attempt < 3 {
				continue
			}
			s.check(t, lost, want{status: 503, code: "unavailable", retryable: true, outcome: "not_committed", action: "retry", sqlstate: "40P01"})
			if got := s.qty(t, 1) + s.qty(t, 2); got != 100 {
				t.Errorf("stock %d after the moves, want 100", got)
			}
			return
		}
	})
	t.Run("terminated mid-move, no Idempotency-Key", func(t *testing.T) {
		before := s.qty(t, 1)
		done := s.terminateMove()
		r := s.do(t, "POST", "/moves", `{"from": 1, "to": 2, "qty": 5}`)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		s.check(t, r, want{status: 502, code: "upstream_error", retryable: false, outcome: "unknown", action: "verify", sqlstate: "57P01"})
		if got := s.qty(t, 1); got != before {
			t.Errorf("qty %d, want %d: the move was terminated before its commit", got, before)
		}
	})
	t.Run("terminated mid-move, with Idempotency-Key", func(t *testing.T) {
		done := s.terminateMove()
		r := s.do(t, "POST", "/moves", `{"from": 1, "to": 2, "qty": 5}`, "Idempotency-Key", "move-7")
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		s.check(t, r, want{status: 502, code: "upstream_error", retryable: true, outcome: "unknown", action: "retry", sqlstate: "57P01"})
	})
	t.Run("dropped view under the running service", func(t *testing.T) {
		if r := s.do(t, "GET", "/labels/1", ""); r.status != http.StatusOK {
			t.Fatalf("before the drop: %d %s", r.status, r.raw)
		}
		s.admin1(t, "DROP VIEW item_labels")
		r := s.do(t, "GET", "/labels/1", "")
		s.check(t, r, want{status: 500, code: "internal", retryable: true, outcome: "not_committed", sqlstate: "42P01"})
	})
	t.Run("renamed column under the running service", func(t *testing.T) {
		if r := s.do(t, "GET", "/items/1", ""); r.status != http.StatusOK {
			t.Fatalf("before the rename: %d %s", r.status, r.raw)
		}
		s.admin1(t, "ALTER TABLE items RENAME COLUMN label TO title")
		defer s.admin1(t, "ALTER TABLE items RENAME COLUMN title TO label")
		r := s.do(t, "GET", "/items/1", "")
		s.check(t, r, want{status: 500, code: "internal", retryable: true, outcome: "not_committed", sqlstate: "42703"})
	})
}
