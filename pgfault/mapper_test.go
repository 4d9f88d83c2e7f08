package pgfault_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestMapperLeavesOtherErrors: a context error that did not pass through
// an Op could come from anywhere; the kit's own mapping of it stands.
func TestMapperLeavesOtherErrors(t *testing.T) {
	m := pgfault.Mapper()
	for _, err := range []error{
		errors.New("boom"),
		context.Canceled,
		fmt.Errorf("waiting: %w", context.DeadlineExceeded),
	} {
		if p, ok := m(err); ok {
			t.Errorf("%v claimed as %s", err, p.Code())
		}
	}
}

// TestAccessHint: the caller's mark beats the verb, both ways.
func TestAccessHint(t *testing.T) {
	terminated := &pgconn.PgError{Severity: "FATAL", Code: "57P01"}
	m := pgfault.Mapper()
	cases := []struct {
		ctx  context.Context
		sql  string
		want problem.Outcome
	}{
		{context.Background(), "SELECT * FROM t", problem.OutcomeNotCommitted},
		{context.Background(), "UPDATE t SET a = 1", problem.OutcomeUnknown},
		{pgfault.WithAccess(context.Background(), pgfault.Read), "CALL report()", problem.OutcomeNotCommitted},
		{pgfault.WithAccess(context.Background(), pgfault.Write), "SELECT next_invoice_number()", problem.OutcomeUnknown},
	}
	for _, c := range cases {
		p, ok := m(pgfault.Track(c.ctx, c.sql).Err(terminated))
		if !ok || p.Outcome() != c.want {
			t.Errorf("%q: outcome %v (claimed %v), want %s", c.sql, p.Outcome(), ok, c.want)
		}
	}
	// Without an Op nothing says it was a read.
	if p, _ := m(terminated); p.Outcome() != problem.OutcomeUnknown {
		t.Errorf("untracked: outcome %s, want unknown", p.Outcome())
	}
}

// TestConnectErrorJoined: pgx joins one error per address tried; the
// SQLSTATE inside still decides, and connecting means nothing started.
func TestConnectErrorJoined(t *testing.T) {
	tooMany := &pgconn.PgError{Severity: "FATAL", Code: "53300"}
	err := fmt.Errorf("connect: %w", errors.Join(errors.New("dial tcp: refused"), tooMany))
	p, ok := pgfault.Mapper()(err)
	if !ok || p.Code() != "unavailable" || p.Outcome() != problem.OutcomeNotStarted || p.RetryAfter() <= 0 {
		t.Fatalf("%+v", p)
	}
}

func TestOpErrNil(t *testing.T) {
	if err := pgfault.Track(context.Background(), "SELECT 1").Err(nil); err != nil {
		t.Fatalf("Err(nil) = %v", err)
	}
}

// TestHostileDriverText: whatever the server's message and object names
// hold (credentials, line breaks that would forge log records, markup),
// the response is the rule's text and the log record is one sanitized
// line.
func TestHostileDriverText(t *testing.T) {
	var logs bytes.Buffer
	w := problem.NewWriter(
		problem.WithLogger(slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(&logs, nil)))),
		problem.WithMappers(pgfault.Mapper()),
	)
	pg := &pgconn.PgError{
		Severity: "ERROR", Code: "23505",
		Message:        "duplicate key postgres://admin:hunter2@db.internal:5432/prod\r\n{\"level\":\"ERROR\",\"msg\":\"forged\"}",
		TableName:      "users\n<script>alert(1)</script>",
		ConstraintName: strings.Repeat("c", 10<<10),
	}
	q := "INSERT INTO users (password) VALUES ('hunter2')"
	err := pgfault.Track(context.Background(), q).Err(pg)
	rec := httptest.NewRecorder()
	_ = w.Write(rec, httptest.NewRequest(http.MethodPost, "/users", nil), w.FromError(err))
	body := rec.Body.String()
	for _, s := range []string{"hunter2", "db.internal", "users\\n", "script", "ccc", "forged", "INSERT"} {
		if strings.Contains(body, s) {
			t.Errorf("body contains %q: %s", s, body)
		}
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want one record:\n%s", len(lines), logs.String())
	}
	if strings.Contains(lines[0], "hunter2") {
		t.Errorf("log keeps the password: %s", lines[0])
	}
	var record map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &record); err != nil {
		t.Fatal(err)
	}
	db := record["db"].(map[string]any)
	if db["query"] != "INSERT INTO users (password) VALUES (?)" || db["sqlstate"] != "23505" {
		t.Errorf("evidence %v", db)
	}
}

// TestLostConnectionShapes: each shape in which Go's net, crypto/tls and
// pgx report a connection lost under a tracked statement is the
// documented 502 upstream_error, unknown for a write and not_committed for
// a read. The real failures behind them run in TestLostAnswer and
// TestLostConnectionCode; these cover the shapes a test cannot provoke on
// every platform.
func TestLostConnectionShapes(t *testing.T) {
	opErr := func(op string, err error) error {
		return &net.OpError{Op: op, Net: "tcp", Err: err}
	}
	shapes := []error{
		io.EOF,
		io.ErrUnexpectedEOF,
		fmt.Errorf("read message: %w", io.ErrUnexpectedEOF),
		opErr("read", os.NewSyscallError("read", syscall.ECONNRESET)),
		opErr("write", os.NewSyscallError("write", syscall.EPIPE)),
		opErr("read", os.NewSyscallError("read", syscall.ECONNABORTED)),
		opErr("read", os.NewSyscallError("read", syscall.ETIMEDOUT)),
		opErr("read", os.ErrDeadlineExceeded),
		opErr("read", net.ErrClosed),
		opErr("remote error", tls.AlertError(80)),
		tls.AlertError(20),
		tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"},
		fmt.Errorf("write failed: %w", syscall.EPIPE),
		pgconn.ErrConnClosed,
		errors.Join(errors.New("during rollback"), io.ErrUnexpectedEOF),
	}
	m := pgfault.Mapper()
	for _, err := range shapes {
		for sql, want := range map[string]problem.Outcome{
			"INSERT INTO t VALUES (1)": problem.OutcomeUnknown,
			"SELECT a FROM t":          problem.OutcomeNotCommitted,
		} {
			p, ok := m(pgfault.Track(context.Background(), sql).Err(err))
			if !ok || p.Code() != "upstream_error" || p.Status() != 502 || p.Outcome() != want {
				t.Errorf("%q on %q: claimed %v, %s %d outcome %s; want upstream_error 502 %s", err, sql, ok, p.Code(), p.Status(), p.Outcome(), want)
			}
		}
	}
	// The caller's own deadline, met on the wire, stays a timeout.
	p, _ := m(pgfault.Track(context.Background(), "INSERT INTO t VALUES (1)").Err(fmt.Errorf("x: %w", &net.OpError{Op: "read", Err: context.DeadlineExceeded})))
	if p.Code() == "upstream_error" {
		t.Errorf("context deadline mapped as a lost connection: %s", p.Code())
	}
}

// An operator reads a failure's timing as text ("1.2ms"), as every
// duration the kit logs, not as slog's count of nanoseconds.
func TestLoggedElapsedIsText(t *testing.T) {
	var logs bytes.Buffer
	w := problem.NewWriter(
		problem.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
		problem.WithMappers(pgfault.Mapper()),
	)
	err := pgfault.Track(context.Background(), "UPDATE accounts SET n = n + 1").Err(&pgconn.PgError{Severity: "ERROR", Code: "40001"})
	_ = w.Write(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/accounts", nil), w.FromError(err))
	var rec struct{ DB map[string]any }
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("log record: %v\n%s", err, logs.String())
	}
	text, ok := rec.DB["elapsed"].(string)
	if !ok {
		t.Fatalf("db.elapsed = %#v, want a duration as text\n%s", rec.DB["elapsed"], logs.String())
	}
	if _, err := time.ParseDuration(text); err != nil {
		t.Errorf("elapsed %q: %v", text, err)
	}
}
