package pgfault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/pgfault/internal/pgtest"
	"github.com/faultline-go/faultline/problem"
	"github.com/faultline-go/faultline/sanitize"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schema is the service's data, owned by the app role. Every name in it is
// one a public body must never contain.
const schema = `
CREATE TABLE inventory_items (
	id int PRIMARY KEY,
	label varchar(12) NOT NULL,
	qty int CONSTRAINT qty_not_negative CHECK (qty >= 0)
);
CREATE TABLE purchase_orders (
	id int PRIMARY KEY,
	item_id int CONSTRAINT purchase_orders_item_fk REFERENCES inventory_items(id)
);
CREATE TABLE ledger_counters (id int PRIMARY KEY, n int NOT NULL);
INSERT INTO ledger_counters VALUES (1, 0), (2, 0);
CREATE VIEW item_labels_view AS SELECT id, label FROM inventory_items;
`

// adminSchema runs as the superuser: a table the app role may not read,
// and a role that may not connect at all.
const adminSchema = `
CREATE TABLE payroll_secrets (id int);
CREATE ROLE capped_role LOGIN CONNECTION LIMIT 0;
`

// hidden lists what no public body may contain: object names, SQL, values
// the scenarios send, and the server's address.
var hidden = []string{
	"inventory_items", "purchase_orders", "ledger_counters", "item_labels_view",
	"payroll_secrets", "capped_role", "qty_not_negative", "purchase_orders_item_fk",
	"inventory_items_pkey", "label", "qty", "item_id",
	"SELECT", "INSERT", "UPDATE", "select", "insert", "update", "SQLSTATE", "pg_",
	"not-a-number", "9999999999", "far-too-long-label", "127.0.0.1", "postgres", "app@",
	"hunter2-secret", "no_such_db",
}

type harness struct {
	srv   *pgtest.Server
	pool  *pgxpool.Pool
	admin *pgxpool.Pool
	w     *problem.Writer
	mu    sync.Mutex
	logs  bytes.Buffer
}

func (h *harness) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logs.Write(p)
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{srv: pgtest.Start(t)}
	ctx := context.Background()
	h.pool = newPool(t, h.srv.DSN(pgtest.App), 4)
	h.admin = newPool(t, h.srv.DSN(pgtest.Superuser), 4)
	if _, err := h.pool.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	if _, err := h.admin.Exec(ctx, adminSchema); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(sanitize.NewLogHandler(slog.NewJSONHandler(h, nil)))
	h.w = problem.NewWriter(problem.WithLogger(logger),
		problem.WithMappers(pgfault.Mapper(pgfault.WithPool(h.pool))))
	return h
}

func newPool(t *testing.T, dsn string, max int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = max
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// exec runs one tracked statement on the app pool.
func (h *harness) exec(ctx context.Context, q string, args ...any) error {
	op := pgfault.Track(ctx, q)
	_, err := h.pool.Exec(ctx, q, args...)
	return op.Err(err)
}

// rendered is one problem as a client and the operator see it.
type rendered struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
	log    map[string]any
}

// render writes err the way a handler would, for a POST without an
// Idempotency-Key, and returns the response and the log record.
func (h *harness) render(t *testing.T, err error) rendered {
	t.Helper()
	return h.renderFor(t, err, nil)
}

// renderFor is render answering a request served under ctx (nil: one
// whose client still waits).
func (h *harness) renderFor(t *testing.T, err error, ctx context.Context) rendered {
	t.Helper()
	h.mu.Lock()
	h.logs.Reset()
	h.mu.Unlock()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/v1/items", nil)
	if ctx != nil {
		req = req.WithContext(ctx)
	}
	if werr := h.w.Write(rec, req, h.w.FromError(err)); werr != nil {
		t.Fatal(werr)
	}
	r := rendered{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if e := json.Unmarshal(rec.Body.Bytes(), &r.body); e != nil {
		t.Fatalf("body is not JSON: %v\n%s", e, r.raw)
	}
	h.mu.Lock()
	line := bytes.TrimSpace(h.logs.Bytes())
	h.mu.Unlock()
	if e := json.Unmarshal(line, &r.log); e != nil {
		t.Fatalf("log record is not one JSON object: %v\n%s", e, line)
	}
	return r
}

// count returns how many rows of inventory_items have id, read as the
// superuser: the proof of what a failed write did.
func (h *harness) count(t *testing.T, id int) int {
	t.Helper()
	var n int
	if err := h.admin.QueryRow(context.Background(), "SELECT count(*) FROM inventory_items WHERE id = $1", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// terminate ends the backend with pid, and waits until it is gone.
func (h *harness) terminate(pid uint32) error {
	ctx := context.Background()
	if _, err := h.admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		return err
	}
	for range 200 {
		var n int
		if err := h.admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("backend %d still alive", pid)
}

// whenSleeping runs act, from another goroutine, on the first backend of
// the app role sleeping in a statement that contains marker: a point where
// everything before the sleep has run and nothing after it. The returned
// channel reports how that went.
func (h *harness) whenSleeping(marker string, act func(pid uint32) error) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx := context.Background()
		for range 300 {
			var pid uint32
			err := h.admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity
				WHERE usename = 'app' AND wait_event = 'PgSleep' AND query LIKE '%' || $1 || '%'`, marker).Scan(&pid)
			if err == nil {
				done <- act(pid)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		done <- fmt.Errorf("no statement with %q sleeping", marker)
	}()
	return done
}

// execTerminated runs q and has it terminated while it runs.
func (h *harness) execTerminated(t *testing.T, marker, q string) error {
	t.Helper()
	done := h.whenSleeping(marker, h.terminate)
	err := h.exec(context.Background(), q)
	if terr := <-done; terr != nil {
		t.Fatal(terr)
	}
	return err
}

// scenario is one row of the table the issue asks for.
// ran is what a scenario's failure left: the error and the row count that
// proves what the failed write did (-1 when there is none). A struct rather
// than two results, so the count is always read after the statement ran.
type ran struct {
	err  error
	rows int
}

type scenario struct {
	name string
	// run produces the failure against the real server and may return a
	// row count proving what a failed write did (-1 when there is none).
	run       func(t *testing.T, h *harness) ran
	status    int
	code      string
	retryable bool
	outcome   string // "" when the member must be absent
	sqlstate  string // "" when the server did not answer
	sent      string
	wantRows  int // -1: no row check
	// clientGone: the client went away, so the request the problem
	// answers has ended; otherwise its client still waits for it.
	clientGone bool
}

func TestScenarios(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	seed := func(t *testing.T, id int) {
		t.Helper()
		if _, err := h.admin.Exec(ctx, "INSERT INTO inventory_items VALUES ($1, 'seed', 1) ON CONFLICT DO NOTHING", id); err != nil {
			t.Fatal(err)
		}
	}

	scenarios := []scenario{
		{name: "invalid type", status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22P02", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (1, 'x', $1::text::int)", "not-a-number"), -1}
			}},
		{name: "out of range", status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22003", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				err := h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (2, 'x', $1::bigint)", int64(9999999999))
				return ran{err, h.count(t, 2)}
			}},
		// pgx refuses a Go value the column's type cannot hold before
		// anything is sent: the client's value is out of range, and the
		// write certainly did not start.
		{name: "out of range for the column, refused by the driver", status: 422, code: "validation_failed", outcome: "not_started", sent: "no", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (11, 'x', $1)", int64(9999999999)), h.count(t, 11)}
			}},
		{name: "out of range, untracked, refused by the driver", status: 422, code: "validation_failed", outcome: "not_started", sent: "no", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				_, err := h.pool.Exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (12, 'x', $1)", int64(9999999999))
				return ran{err, h.count(t, 12)}
			}},
		// A Go value pgx cannot encode at all is the service's bug, not the
		// client's; still, nothing was sent.
		{name: "argument the driver cannot encode", status: 500, code: "internal", retryable: true, outcome: "not_started", sent: "no", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (13, 'x', $1)", struct{ A chan int }{}), h.count(t, 13)}
			}},
		{name: "value too long", status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "22001", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (3, $1, 1)", "far-too-long-label"), h.count(t, 3)}
			}},
		{name: "check violation", status: 422, code: "validation_failed", outcome: "not_committed", sqlstate: "23514", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (4, 'x', -1)"), h.count(t, 4)}
			}},
		{name: "unique violation", status: 409, code: "conflict", outcome: "not_committed", sqlstate: "23505", sent: "yes", wantRows: 1,
			run: func(t *testing.T, h *harness) ran {
				seed(t, 5)
				return ran{h.exec(ctx, "INSERT INTO inventory_items (id, label, qty) VALUES (5, 'dup', 1)"), h.count(t, 5)}
			}},
		{name: "foreign key violation", status: 409, code: "conflict", outcome: "not_committed", sqlstate: "23503", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "INSERT INTO purchase_orders VALUES (1, 424242)"), -1}
			}},
		{name: "no rows", status: 404, code: "not_found", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				q := "SELECT label FROM inventory_items WHERE id = $1"
				op := pgfault.Track(ctx, q)
				var label string
				return ran{op.Err(h.pool.QueryRow(ctx, q, 777).Scan(&label)), -1}
			}},
		{name: "pool exhausted", status: 503, code: "unavailable", retryable: true, outcome: "not_started", sent: "no", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				var held []*pgxpool.Conn
				for range h.pool.Config().MaxConns {
					c, err := h.pool.Acquire(ctx)
					if err != nil {
						t.Fatal(err)
					}
					held = append(held, c)
				}
				defer func() {
					for _, c := range held {
						c.Release()
					}
				}()
				short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
				return ran{h.exec(short, "INSERT INTO inventory_items VALUES (6, 'x', 1)"), h.count(t, 6)}
			}},
		{name: "too many connections (53300)", status: 503, code: "unavailable", retryable: true, outcome: "not_started", sqlstate: "53300", sent: "no", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				_, err := pgx.Connect(ctx, strings.Replace(h.srv.DSN(pgtest.App), "app@", "capped_role@", 1))
				return ran{err, -1}
			}},
		{name: "server unreachable", status: 503, code: "unavailable", retryable: true, outcome: "not_started", sent: "no", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				_, err := pgx.Connect(ctx, "postgres://app@127.0.0.1:1/app?sslmode=disable&connect_timeout=2")
				return ran{err, -1}
			}},
		{name: "statement_timeout on a write", status: 503, code: "timeout", retryable: true, outcome: "not_committed", sqlstate: "57014", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				tx, err := h.pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = '100ms'"); err != nil {
					t.Fatal(err)
				}
				q := "INSERT INTO inventory_items SELECT 7, 'slow', 1 FROM pg_sleep(2)"
				op := pgfault.Track(ctx, q)
				_, err = tx.Exec(ctx, q)
				return ran{op.Err(err), h.count(t, 7)}
			}},
		{name: "statement_timeout after an inner COMMIT", status: 503, code: "timeout", retryable: false, outcome: "unknown", sqlstate: "57014", sent: "yes", wantRows: 1,
			run: func(t *testing.T, h *harness) ran {
				c, err := h.pool.Acquire(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Release()
				if _, err := c.Exec(ctx, "SET statement_timeout = '200ms'"); err != nil {
					t.Fatal(err)
				}
				defer c.Exec(ctx, "RESET statement_timeout")
				// The server cancels the string's last statement; the
				// insert before it has committed. not_committed would lie.
				q := "BEGIN; INSERT INTO inventory_items VALUES (16, 'x', 1); COMMIT; SELECT pg_sleep(2)"
				op := pgfault.Track(ctx, q)
				_, err = c.Exec(ctx, q)
				return ran{op.Err(err), h.count(t, 16)}
			}},
		{name: "cancel before execution", status: 499, code: "client_closed_request", retryable: true, outcome: "not_started", sent: "no", wantRows: 0, clientGone: true,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				return ran{h.exec(cctx, "INSERT INTO inventory_items VALUES (8, 'x', 1)"), h.count(t, 8)}
			}},
		{name: "cancel during a read", status: 499, code: "client_closed_request", retryable: true, outcome: "not_committed", sent: "unknown", wantRows: -1, clientGone: true,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(100*time.Millisecond, cancel)
				return ran{h.exec(cctx, "SELECT pg_sleep(2)"), -1}
			}},
		// The next two fail identically on the client's side, and one
		// commits while the other does not: only "unknown" is true of both.
		{name: "cancel during a write, before it commits", status: 499, code: "client_closed_request", retryable: false, outcome: "unknown", sent: "unknown", wantRows: 0, clientGone: true,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(100*time.Millisecond, cancel)
				// pgx closes the connection and asks the server to cancel
				// the statement, which rolls it back.
				err := h.exec(cctx, "INSERT INTO inventory_items SELECT $1, 'late', 1 FROM pg_sleep(2)", 9)
				return ran{err, h.count(t, 9)}
			}},
		{name: "cancel during a write, after it commits", status: 499, code: "client_closed_request", retryable: false, outcome: "unknown", sent: "unknown", wantRows: 1, clientGone: true,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				done := h.whenSleeping("cancel-me-after", func(uint32) error { cancel(); return nil })
				// The client sees the same cancellation as above, but the
				// mutation committed before it: only "unknown" is true of
				// both.
				err := h.exec(cctx, "BEGIN; INSERT INTO inventory_items VALUES (13, 'x', 1); COMMIT; SELECT pg_sleep(2) /* cancel-me-after */")
				if derr := <-done; derr != nil {
					t.Fatal(derr)
				}
				return ran{err, h.count(t, 13)}
			}},
		// The same cancellation, by a context the handler derived (a call
		// shared with another request, a sibling's failure), while its
		// client still waits: the client closed nothing. The failure is
		// the server's, and the committed write is unknown, never
		// replayed on a client_closed_request's retry.
		{name: "handler's own cancel during a write, after it commits", status: 500, code: "internal", retryable: false, outcome: "unknown", sent: "unknown", wantRows: 1,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				done := h.whenSleeping("cancel-me-too", func(uint32) error { cancel(); return nil })
				err := h.exec(cctx, "BEGIN; INSERT INTO inventory_items VALUES (17, 'x', 1); COMMIT; SELECT pg_sleep(2) /* cancel-me-too */")
				if derr := <-done; derr != nil {
					t.Fatal(derr)
				}
				return ran{err, h.count(t, 17)}
			}},
		{name: "handler's own cancel before execution, while a read's client waits", status: 500, code: "internal", retryable: true, outcome: "not_started", sent: "no", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				cancel()
				return ran{h.exec(cctx, "SELECT label FROM inventory_items WHERE id = $1", 1), -1}
			}},
		{name: "deadline during a read", status: 503, code: "timeout", retryable: true, outcome: "not_committed", sent: "unknown", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				defer cancel()
				return ran{h.exec(dctx, "SELECT pg_sleep(2)"), -1}
			}},
		{name: "cancel during result delivery", status: 499, code: "client_closed_request", retryable: true, outcome: "not_committed", sent: "unknown", wantRows: -1, clientGone: true,
			run: func(t *testing.T, h *harness) ran {
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				// The server flushes its output every 8 KiB: wide rows
				// make it deliver the first part before it stalls.
				q := "SELECT g, repeat('x', 1000), pg_sleep(CASE WHEN g = 200 THEN 1 ELSE 0 END) FROM generate_series(1, 400) g"
				op := pgfault.Track(cctx, q)
				rows, err := h.pool.Query(cctx, q)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for rows.Next() {
					if n++; n == 1 {
						cancel()
					}
				}
				if n == 0 {
					t.Fatal("no row delivered before the cancel")
				}
				return ran{op.Err(rows.Err()), -1}
			}},
		{name: "serialization failure", status: 503, code: "unavailable", retryable: true, outcome: "not_committed", sqlstate: "40001", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran { return ran{serializationFailure(t, h), -1} }},
		{name: "deadlock", status: 503, code: "unavailable", retryable: true, outcome: "not_committed", sqlstate: "40P01", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran { return ran{deadlock(t, h), -1} }},
		{name: "privilege missing", status: 403, code: "policy_denied", outcome: "not_committed", sqlstate: "42501", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "SELECT id FROM payroll_secrets"), -1}
			}},
		{name: "feature not supported", status: 501, code: "not_implemented", outcome: "not_committed", sqlstate: "0A000", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.exec(ctx, "CREATE TABLE inventory_items_copy (qty int CHECK (qty IN (SELECT 1)))"), -1}
			}},
		{name: "dropped view under a running service", status: 500, code: "internal", retryable: true, outcome: "not_committed", sqlstate: "42P01", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				q := "SELECT label FROM item_labels_view WHERE id = $1"
				if err := h.exec(ctx, q, 5); err != nil {
					t.Fatalf("before the drop: %v", err)
				}
				if _, err := h.admin.Exec(ctx, "DROP VIEW item_labels_view"); err != nil {
					t.Fatal(err)
				}
				return ran{h.exec(ctx, q, 5), -1}
			}},
		{name: "renamed column under a running service", status: 500, code: "internal", retryable: true, outcome: "not_committed", sqlstate: "42703", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				q := "SELECT label FROM inventory_items WHERE id = $1"
				if err := h.exec(ctx, q, 5); err != nil {
					t.Fatalf("before the rename: %v", err)
				}
				if _, err := h.admin.Exec(ctx, "ALTER TABLE inventory_items RENAME COLUMN label TO label_renamed"); err != nil {
					t.Fatal(err)
				}
				defer h.admin.Exec(ctx, "ALTER TABLE inventory_items RENAME COLUMN label_renamed TO label")
				return ran{h.exec(ctx, q, 5), -1}
			}},
		{name: "terminated during a read", status: 502, code: "upstream_error", retryable: true, outcome: "not_committed", sqlstate: "57P01", sent: "yes", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				return ran{h.execTerminated(t, "terminate-me-read", "SELECT pg_sleep(2) /* terminate-me-read */"), -1}
			}},
		{name: "terminated before the mutation commits", status: 502, code: "upstream_error", retryable: false, outcome: "unknown", sqlstate: "57P01", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				err := h.execTerminated(t, "terminate-me-before", "BEGIN; INSERT INTO inventory_items VALUES (10, 'x', 1); SELECT pg_sleep(2) /* terminate-me-before */; COMMIT")
				return ran{err, h.count(t, 10)}
			}},
		{name: "terminated after the mutation commits", status: 502, code: "upstream_error", retryable: false, outcome: "unknown", sqlstate: "57P01", sent: "yes", wantRows: 1,
			run: func(t *testing.T, h *harness) ran {
				err := h.execTerminated(t, "terminate-me-after", "BEGIN; INSERT INTO inventory_items VALUES (11, 'x', 1); COMMIT; SELECT pg_sleep(2) /* terminate-me-after */")
				return ran{err, h.count(t, 11)}
			}},
		{name: "terminated while idle in a transaction, then COMMIT", status: 502, code: "upstream_error", retryable: false, outcome: "unknown", sqlstate: "57P01", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				tx, err := h.pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				var pid uint32
				if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(ctx, "INSERT INTO inventory_items VALUES (12, 'x', 1)"); err != nil {
					t.Fatal(err)
				}
				if err := h.terminate(pid); err != nil {
					t.Fatal(err)
				}
				op := pgfault.Track(ctx, "COMMIT")
				return ran{op.Err(tx.Commit(ctx)), h.count(t, 12)}
			}},
		{name: "statement on a connection pgx knows is closed", status: 503, code: "unavailable", retryable: true, outcome: "not_started", sent: "no", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				conn, err := pgx.Connect(ctx, h.srv.DSN(pgtest.App))
				if err != nil {
					t.Fatal(err)
				}
				conn.Close(ctx)
				q := "INSERT INTO inventory_items VALUES (14, 'x', 1)"
				op := pgfault.TrackConn(ctx, conn, q)
				_, err = conn.Exec(ctx, q)
				return ran{op.Err(err), h.count(t, 14)}
			}},
		// The same error without TrackConn: pgconn answers "conn closed"
		// too when it closed the connection under a statement it had sent,
		// so only unknown is true of it.
		{name: "write on a closed connection, not known closed before", status: 502, code: "upstream_error", retryable: false, outcome: "unknown", sent: "unknown", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				conn, err := pgx.Connect(ctx, h.srv.DSN(pgtest.App))
				if err != nil {
					t.Fatal(err)
				}
				conn.Close(ctx)
				q := "UPDATE inventory_items SET qty = qty + 1 WHERE id = 14"
				op := pgfault.Track(ctx, q)
				_, err = conn.Exec(ctx, q)
				return ran{op.Err(err), h.count(t, 14)}
			}},
		{name: "COMMIT after an ignored failure", status: 500, code: "internal", retryable: true, outcome: "not_committed", sent: "yes", wantRows: 0,
			run: func(t *testing.T, h *harness) ran {
				tx, err := h.pool.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, "INSERT INTO inventory_items VALUES (15, 'x', 1)"); err != nil {
					t.Fatal(err)
				}
				_, _ = tx.Exec(ctx, "INSERT INTO inventory_items VALUES (15, 'x', 1)")
				op := pgfault.Track(ctx, "COMMIT")
				return ran{op.Err(tx.Commit(ctx)), h.count(t, 15)}
			}},
		{name: "database does not exist", status: 500, code: "internal", retryable: true, outcome: "not_started", sqlstate: "3D000", sent: "no", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				_, err := pgx.Connect(ctx, strings.Replace(h.srv.DSN(pgtest.App), "/app?", "/no_such_db?", 1))
				return ran{err, -1}
			}},
		{name: "connection string does not parse", status: 500, code: "internal", retryable: true, outcome: "not_started", sent: "no", wantRows: -1,
			run: func(t *testing.T, h *harness) ran {
				_, err := pgxpool.ParseConfig("postgres://app:hunter2-secret@127.0.0.1:notaport/app")
				return ran{err, -1}
			}},
	}

	var table strings.Builder
	fmt.Fprintf(&table, "\n| scenario | status | code | retryable | outcome | action | row check |\n|---|---|---|---|---|---|---|\n")
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			got := sc.run(t, h)
			err, rows := got.err, got.rows
			if err == nil {
				t.Fatal("the scenario did not fail")
			}
			var served context.Context
			if sc.clientGone {
				// The request's context ended with the client's going.
				gone, cancel := context.WithCancel(ctx)
				cancel()
				served = gone
			}
			r := h.renderFor(t, err, served)
			if r.status != sc.status {
				t.Errorf("status %d, want %d (error: %v)", r.status, sc.status, err)
			}
			member(t, r.body, "status", float64(sc.status))
			member(t, r.body, "code", sc.code)
			member(t, r.body, "retryable", sc.retryable)
			if sc.outcome == "" {
				if _, ok := r.body["outcome"]; ok {
					t.Errorf("outcome %v, want none", r.body["outcome"])
				}
			} else {
				member(t, r.body, "outcome", sc.outcome)
			}
			checkContract(t, r)
			checkHidden(t, r.raw)
			checkLog(t, r, sc)
			if sc.wantRows >= 0 && rows != sc.wantRows {
				t.Errorf("row check: %d rows, want %d: outcome %q did not tell the truth", rows, sc.wantRows, sc.outcome)
			}
			check := "-"
			if sc.wantRows >= 0 {
				check = fmt.Sprintf("%d row(s)", rows)
			}
			fmt.Fprintf(&table, "| %s | %d | %v | %v | %v | %v | %s |\n", sc.name, r.status, r.body["code"], r.body["retryable"], r.body["outcome"], r.body["action"], check)
		})
	}
	t.Log(table.String())
}

func member(t *testing.T, body map[string]any, name string, want any) {
	t.Helper()
	if got := body[name]; got != want {
		t.Errorf("%s = %#v, want %#v", name, got, want)
	}
}

// checkContract asserts what holds for every problem: retry guidance that
// agrees with itself, and a Retry-After only with a retry_after_ms.
func checkContract(t *testing.T, r rendered) {
	t.Helper()
	action, _ := r.body["action"].(string)
	retryable, _ := r.body["retryable"].(bool)
	if action == "retry" && !retryable {
		t.Errorf("action retry with retryable false")
	}
	if r.body["outcome"] == "unknown" && !retryable && action != "verify" {
		t.Errorf("outcome unknown without Idempotency-Key: action %q, want verify", action)
	}
	ms, hasMS := r.body["retry_after_ms"].(float64)
	if hasMS != (r.header.Get("Retry-After") != "") {
		t.Errorf("retry_after_ms %v but Retry-After %q", r.body["retry_after_ms"], r.header.Get("Retry-After"))
	}
	if hasMS && (ms < 100 || ms >= 200) {
		t.Errorf("retry_after_ms %v, want the short jittered [100, 200)", ms)
	}
}

func checkHidden(t *testing.T, raw string) {
	t.Helper()
	for _, s := range hidden {
		if strings.Contains(raw, s) {
			t.Errorf("public body contains %q:\n%s", s, raw)
		}
	}
}

// checkLog asserts that the evidence reached the log record, under the
// correlation ID's record, in the db group.
func checkLog(t *testing.T, r rendered, sc scenario) {
	t.Helper()
	db, ok := r.log["db"].(map[string]any)
	if !ok {
		t.Fatalf("log record has no db group: %v", r.log)
	}
	if sc.sqlstate != "" && db["sqlstate"] != sc.sqlstate {
		t.Errorf("log sqlstate %v, want %s", db["sqlstate"], sc.sqlstate)
	}
	if db["sent"] != sc.sent {
		t.Errorf("log sent %v, want %s", db["sent"], sc.sent)
	}
	checkEvidence(t, r)
	if q, ok := db["query"].(string); ok {
		for _, v := range []string{"not-a-number", "9999999999", "far-too-long-label", "'x'", "424242"} {
			if strings.Contains(q, v) {
				t.Errorf("fingerprint keeps the literal %s: %s", v, q)
			}
		}
	}
	if _, ok := db["pool"].(map[string]any); !ok {
		t.Errorf("log has no pool state: %v", db)
	}
	if r.log["code"] != r.body["code"] {
		t.Errorf("log code %v, body code %v", r.log["code"], r.body["code"])
	}
}

// evidenceFor is, for each outcome pgfault gives, the evidence it may rest
// on (the record's db.evidence); an outcome resting on anything else is a
// claim without proof. not_committed rests on the server's refusal, or,
// for a read only, on anything: a read changed nothing.
var evidenceFor = map[string][]string{
	"not_started": {"config_refused", "not_connected", "refused_at_connect", "nothing_written",
		"closed_before_call", "argument_refused", "context_done_before_call", "pool_wait"},
	"not_committed": {"server_refused", "commit_rolled_back"},
	"unknown": {"server_unsure", "refused_after_inner_commit", "session_ended",
		"context_done_during_call", "connection_lost", "no_evidence"},
	"": {"no_rows"},
}

// checkEvidence asserts that the outcome rests on evidence that can carry
// it.
func checkEvidence(t *testing.T, r rendered) {
	t.Helper()
	db, _ := r.log["db"].(map[string]any)
	ev, _ := db["evidence"].(string)
	outcome, _ := r.body["outcome"].(string)
	allowed := evidenceFor[outcome]
	if outcome == "not_committed" && db["access"] == "read" {
		allowed = append(allowed, evidenceFor["unknown"]...)
	}
	if !slices.Contains(allowed, ev) {
		t.Errorf("outcome %q rests on evidence %q, which cannot carry it (allowed: %v)", outcome, ev, allowed)
	}
}

// serializationFailure runs two serializable transactions that each read
// what the other writes; the second to commit is refused.
func serializationFailure(t *testing.T, h *harness) error {
	ctx := context.Background()
	opts := pgx.TxOptions{IsoLevel: pgx.Serializable}
	t1, err := h.pool.BeginTx(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Rollback(ctx)
	t2, err := h.pool.BeginTx(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer t2.Rollback(ctx)
	steps := []struct {
		tx pgx.Tx
		q  string
	}{
		{t1, "SELECT sum(n) FROM ledger_counters"},
		{t2, "SELECT sum(n) FROM ledger_counters"},
		{t1, "UPDATE ledger_counters SET n = n + 1 WHERE id = 1"},
		{t2, "UPDATE ledger_counters SET n = n + 1 WHERE id = 2"},
		{t1, "COMMIT"},
		{t2, "COMMIT"},
	}
	for _, s := range steps {
		op := pgfault.Track(ctx, s.q)
		if _, err := s.tx.Exec(ctx, s.q); err != nil {
			return op.Err(err)
		}
	}
	t.Fatal("no serialization failure")
	return nil
}

// deadlock locks two rows in opposite orders from two transactions.
func deadlock(t *testing.T, h *harness) error {
	ctx := context.Background()
	t1, err := h.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer t1.Rollback(ctx)
	t2, err := h.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer t2.Rollback(ctx)
	lock := func(tx pgx.Tx, id int) error {
		q := "UPDATE ledger_counters SET n = n + 1 WHERE id = $1"
		op := pgfault.Track(ctx, q)
		_, err := tx.Exec(ctx, q, id)
		return op.Err(err)
	}
	if err := lock(t1, 1); err != nil {
		t.Fatal(err)
	}
	if err := lock(t2, 2); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { first <- lock(t1, 2) }()
	time.Sleep(50 * time.Millisecond)
	second := lock(t2, 1)
	if second == nil {
		// The server chose the other transaction as the victim.
		second = <-first
	} else {
		t2.Rollback(ctx)
		<-first
	}
	var pg *pgconn.PgError
	if !errors.As(second, &pg) || pg.Code != "40P01" {
		t.Fatalf("no deadlock: %v", second)
	}
	return second
}
