package pgfault_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/faultline-go/faultline/pgfault"
	"github.com/faultline-go/faultline/pgfault/internal/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const lostSchema = `
CREATE TABLE shipments (id int PRIMARY KEY, status text NOT NULL);
INSERT INTO shipments SELECT g, 'pending' FROM generate_series(1, 99) g;
CREATE TABLE ledger_entries (id bigint PRIMARY KEY, amount_cents int NOT NULL);
CREATE TABLE settings (key text PRIMARY KEY, value int NOT NULL);
INSERT INTO settings VALUES ('quota', 10), ('limit', 20), ('burst', 30);
`

// lostCase loses the answer to one statement and says what the rows must
// show afterwards, as the superuser reads them on a direct connection.
type lostCase struct {
	name string
	cue  string
	mode cutMode
	// run performs the statement through pool (which goes through the
	// proxy) and returns its error, tracked.
	run func(ctx context.Context, pool *pgxpool.Pool) error
	// effect reads back what the statement did: true when it took effect.
	effect     func(t *testing.T, h *harness) bool
	wantEffect bool
	status     int
	code       string
	retryable  bool
	outcome    string
}

// TestLostAnswer runs statements whose answer the network loses after the
// server sent it (or before the server saw them), and checks that the
// outcome is never contradicted by the rows: a write that took effect is
// never not_started or not_committed, whether pgx sent it over the simple
// protocol (no arguments, COMMIT) or the extended one.
func TestLostAnswer(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, lostSchema); err != nil {
		t.Fatal(err)
	}
	proxy := newLossyProxy(t, h.srv.Addr(), nil)
	viaProxy := newPool(t, strings.Replace(h.srv.DSN(pgtest.App), h.srv.Addr(), proxy.addr(), 1), 2)

	status := func(id int) func(*testing.T, *harness) bool {
		return func(t *testing.T, h *harness) bool {
			var s string
			if err := h.admin.QueryRow(ctx, "SELECT status FROM shipments WHERE id = $1", id).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s != "pending"
		}
	}
	entry := func(id int64) func(*testing.T, *harness) bool {
		return func(t *testing.T, h *harness) bool {
			var n int
			if err := h.admin.QueryRow(ctx, "SELECT count(*) FROM ledger_entries WHERE id = $1", id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n == 1
		}
	}
	exec := func(q string, args ...any) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			op := pgfault.Track(ctx, q)
			_, err := pool.Exec(ctx, q, args...)
			return op.Err(err)
		}
	}
	query := func(q string, args ...any) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			op := pgfault.Track(ctx, q)
			rows, err := pool.Query(ctx, q, args...)
			if err != nil {
				return op.Err(err)
			}
			for rows.Next() {
			}
			return op.Err(rows.Err())
		}
	}
	commit := func(q string, args ...any) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			tx, err := pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("inside the transaction: %w", err)
			}
			op := pgfault.Track(ctx, "COMMIT")
			return op.Err(tx.Commit(ctx))
		}
	}
	read := func(q string, args ...any) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			op := pgfault.Track(ctx, q)
			var s string
			return op.Err(pool.QueryRow(ctx, q, args...).Scan(&s))
		}
	}
	never := func(*testing.T, *harness) bool { return false }
	setting := func(key string, was int) func(*testing.T, *harness) bool {
		return func(t *testing.T, h *harness) bool {
			var v int
			if err := h.admin.QueryRow(ctx, "SELECT value FROM settings WHERE key = $1", key).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v != was
		}
	}
	batch := func(qs ...string) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			op := pgfault.Track(ctx, strings.Join(qs, "; "))
			b := &pgx.Batch{}
			for _, q := range qs {
				b.Queue(q, 1)
			}
			return op.Err(pool.SendBatch(ctx, b).Close())
		}
	}
	// An application that never tracks its statements: pgx's own error
	// types still tell the mapper a connection was lost.
	beginFunc := func(q string) func(context.Context, *pgxpool.Pool) error {
		return func(ctx context.Context, pool *pgxpool.Pool) error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := tx.Exec(ctx, q)
				return err
			})
		}
	}

	cases := []lostCase{
		{name: "Exec without arguments (simple protocol)", cue: "WHERE id = 42", run: exec("UPDATE shipments SET status='shipped' WHERE id = 42"),
			effect: status(42), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "Exec without arguments, connection reset", cue: "WHERE id = 43", mode: afterAnswerReset, run: exec("UPDATE shipments SET status = 'lost' WHERE id = 43"),
			effect: status(43), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "Exec with arguments (extended protocol)", cue: "ledger_entries VALUES ($1, $2) /* a */", run: exec("INSERT INTO ledger_entries VALUES ($1, $2) /* a */", int64(7001), 1250),
			effect: entry(7001), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "Exec with arguments, connection reset", cue: "WHERE id = $2 /* b */", mode: afterAnswerReset, run: exec("UPDATE shipments SET status = $1 WHERE id = $2 /* b */", "returned", 44),
			effect: status(44), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "COMMIT", cue: "commit\x00", run: commit("UPDATE shipments SET status = 'shipped' WHERE id = 45"),
			effect: status(45), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "COMMIT, connection reset", cue: "commit\x00", mode: afterAnswerReset, run: commit("INSERT INTO ledger_entries VALUES ($1, $2)", int64(7002), -300),
			effect: entry(7002), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "Query without arguments", cue: "RETURNING id /* c */", run: query("INSERT INTO ledger_entries VALUES (7003, 99) RETURNING id /* c */"),
			effect: entry(7003), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "Query with arguments", cue: "RETURNING status /* d */", mode: afterAnswerReset, run: query("UPDATE shipments SET status = $1 WHERE id = $2 RETURNING status /* d */", "held", 46),
			effect: status(46), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "batch", cue: "status = 'batched' WHERE id = 50", run: batch("UPDATE shipments SET status = 'batched' WHERE id = 50 AND 1 = $1", "UPDATE shipments SET status = 'batched' WHERE id = 51 AND 1 = $1"),
			effect: status(51), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "COMMIT of pgx.BeginFunc, untracked", cue: "commit\x00", run: beginFunc("UPDATE shipments SET status = 'shipped' WHERE id = 52"),
			effect: status(52), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		// An UPDATE after a CTE whose last word is a column named key is a
		// write, not a row lock (FOR [NO] KEY UPDATE): a lost answer leaves
		// it unknown, never a read's not_committed.
		{name: "UPDATE after a CTE ending in key, with arguments", cue: "old.value + 1 FROM old", run: exec("WITH old AS (SELECT value FROM settings WHERE key = $1) UPDATE settings SET value = old.value + 1 FROM old WHERE settings.key = $1", "quota"),
			effect: setting("quota", 10), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "UPDATE after a CTE ordered by key, simple protocol", cue: "ORDER BY s.key)", mode: afterAnswerReset, run: exec("WITH c AS (SELECT s.key FROM settings s WHERE s.key = 'limit' ORDER BY s.key) UPDATE settings SET value = 21 WHERE key IN (SELECT key FROM c)"),
			effect: setting("limit", 20), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "UPDATE after a CTE aliasing key, Query", cue: "as key)", run: query("with c as (select 'burst'::text as key) update settings set value = value * 2 from c where settings.key = c.key returning value"),
			effect: setting("burst", 30), wantEffect: true, status: 502, code: "upstream_error", outcome: "unknown"},
		// The server never saw the statement, and the client sees the same
		// failure as above: only unknown is true of both.
		{name: "Exec without arguments, lost before the server", cue: "WHERE id = 47", mode: beforeServer, run: exec("UPDATE shipments SET status = 'shipped' WHERE id = 47"),
			effect: status(47), wantEffect: false, status: 502, code: "upstream_error", outcome: "unknown"},
		{name: "COMMIT, lost before the server", cue: "commit\x00", mode: beforeServer, run: commit("INSERT INTO ledger_entries VALUES (7004, 1)"),
			effect: entry(7004), wantEffect: false, status: 502, code: "upstream_error", outcome: "unknown"},
		// A read changed nothing: losing its answer is not_committed, and
		// retrying it is safe.
		{name: "SELECT without arguments", cue: "WHERE id = 48 /* e */", run: read("SELECT status FROM shipments WHERE id = 48 /* e */"),
			effect: never, status: 502, code: "upstream_error", retryable: true, outcome: "not_committed"},
		{name: "SELECT with arguments, connection reset", cue: "WHERE id = $1 /* f */", mode: afterAnswerReset, run: read("SELECT status FROM shipments WHERE id = $1 /* f */", 49),
			effect: never, status: 502, code: "upstream_error", retryable: true, outcome: "not_committed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cut := proxy.arm(c.cue, c.mode)
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			err := c.run(cctx, viaProxy)
			select {
			case <-cut:
			case <-time.After(5 * time.Second):
				t.Fatalf("the proxy never saw the statement (error: %v)", err)
			}
			if err == nil {
				t.Fatal("the statement did not fail")
			}
			r := h.render(t, err)
			if r.status != c.status {
				t.Errorf("status %d, want %d (error: %v)", r.status, c.status, err)
			}
			member(t, r.body, "code", c.code)
			member(t, r.body, "outcome", c.outcome)
			member(t, r.body, "retryable", c.retryable)
			if c.outcome == "unknown" {
				member(t, r.body, "action", "verify")
			}
			checkContract(t, r)
			checkHidden(t, r.raw)
			if db, _ := r.log["db"].(map[string]any); db["sent"] != "unknown" || db["evidence"] != "connection_lost" {
				t.Errorf("log sent %v, evidence %v; want unknown, connection_lost", db["sent"], db["evidence"])
			}
			checkEvidence(t, r)
			got := c.effect(t, h)
			if got != c.wantEffect {
				t.Fatalf("took effect: %v, want %v", got, c.wantEffect)
			}
			if got && (c.outcome == "not_started" || c.outcome == "not_committed") {
				t.Errorf("outcome %s, but the write took effect", c.outcome)
			}
			t.Logf("error %q: %d %v outcome %v; took effect: %v", err, r.status, r.body["code"], r.body["outcome"], got)
		})
	}
}

// TestClosedConnEvidence: a connection pgx closed after losing an answer
// answers the next statement with the same "conn closed" it gives for the
// statement whose answer was lost. Only TrackConn, which saw the connection
// closed before the call, makes the second not_started; the rows agree.
func TestClosedConnEvidence(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, lostSchema); err != nil {
		t.Fatal(err)
	}
	proxy := newLossyProxy(t, h.srv.Addr(), nil)
	conn, err := pgx.Connect(ctx, strings.Replace(h.srv.DSN(pgtest.App), h.srv.Addr(), proxy.addr(), 1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	cut := proxy.arm("WHERE id = 60", afterAnswer)
	q1 := "UPDATE shipments SET status = 'shipped' WHERE id = 60"
	op := pgfault.TrackConn(ctx, conn, q1)
	_, err = conn.Exec(ctx, q1)
	<-cut
	first := h.render(t, op.Err(err))
	member(t, first.body, "outcome", "unknown")

	q2 := "UPDATE shipments SET status = 'shipped' WHERE id = 61"
	op = pgfault.TrackConn(ctx, conn, q2)
	_, err = conn.Exec(ctx, q2)
	second := h.render(t, op.Err(err))
	member(t, second.body, "code", "unavailable")
	member(t, second.body, "outcome", "not_started")
	member(t, second.body, "retryable", true)
	if db, _ := second.log["db"].(map[string]any); db["evidence"] != "closed_before_call" {
		t.Errorf("evidence %v, want closed_before_call", db["evidence"])
	}

	var s60, s61 string
	if err := h.admin.QueryRow(ctx, "SELECT (SELECT status FROM shipments WHERE id = 60), (SELECT status FROM shipments WHERE id = 61)").Scan(&s60, &s61); err != nil {
		t.Fatal(err)
	}
	if s60 != "shipped" || s61 != "pending" {
		t.Fatalf("rows: 60 %s, 61 %s; want shipped, pending", s60, s61)
	}
}

// readDeadlineConn gives every read a deadline of its own, as a service
// that bounds how long it waits on a socket does: a silent server then
// fails the read with a timeout that is the socket's, not the caller's
// context's.
type readDeadlineConn struct {
	net.Conn
	d time.Duration
}

func (c readDeadlineConn) Read(b []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.d)); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

// TestLostConnectionCode: however pgx reports the connection lost under a
// statement (a socket timeout, a TLS failure, EOF and reset in
// TestLostAnswer), the code is the documented 502 upstream_error, and a
// write that took effect is unknown.
func TestLostConnectionCode(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, lostSchema); err != nil {
		t.Fatal(err)
	}
	plain := newLossyProxy(t, h.srv.Addr(), nil)
	dsn := strings.Replace(h.srv.DSN(pgtest.App), h.srv.Addr(), plain.addr(), 1)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	dialer := &net.Dialer{}
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return readDeadlineConn{Conn: c, d: time.Second}, nil
	}
	timed, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer timed.Close()

	secure := newLossyProxy(t, h.srv.Addr(), selfSignedTLS(t))
	overTLS := newPool(t, strings.Replace(strings.Replace(h.srv.DSN(pgtest.App), h.srv.Addr(), secure.addr(), 1), "sslmode=disable", "sslmode=require", 1), 2)

	shipped := func(t *testing.T, id int) bool {
		var s string
		if err := h.admin.QueryRow(ctx, "SELECT status FROM shipments WHERE id = $1", id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s == "shipped"
	}
	cases := []struct {
		name  string
		proxy *lossyProxy
		mode  cutMode
		pool  *pgxpool.Pool
		id    int
		q     string
		args  []any
		tx    bool
	}{
		{name: "socket read timeout, simple protocol", proxy: plain, mode: holdAnswer, pool: timed, id: 70,
			q: "UPDATE shipments SET status = 'shipped' WHERE id = 70"},
		{name: "socket read timeout, extended protocol", proxy: plain, mode: holdAnswer, pool: timed, id: 71,
			q: "UPDATE shipments SET status = $1 WHERE id = $2 /* g */", args: []any{"shipped", 71}},
		{name: "TLS failure, extended protocol", proxy: secure, mode: garbleTLS, pool: overTLS, id: 72,
			q: "UPDATE shipments SET status = $1 WHERE id = $2 /* h */", args: []any{"shipped", 72}},
		{name: "TLS failure, simple protocol", proxy: secure, mode: garbleTLS, pool: overTLS, id: 73,
			q: "UPDATE shipments SET status = 'shipped' WHERE id = 73"},
		{name: "TLS failure on COMMIT", proxy: secure, mode: garbleTLS, pool: overTLS, id: 74, tx: true,
			q: "UPDATE shipments SET status = 'shipped' WHERE id = 74"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cue := c.q
			if c.tx {
				cue = "commit\x00"
			}
			cut := c.proxy.arm(cue, c.mode)
			var err error
			if c.tx {
				err = commitThrough(ctx, c.pool, c.q)
			} else {
				op := pgfault.Track(ctx, c.q)
				_, err = c.pool.Exec(ctx, c.q, c.args...)
				err = op.Err(err)
			}
			<-cut
			if err == nil {
				t.Fatal("the statement did not fail")
			}
			r := h.render(t, err)
			if r.status != 502 {
				t.Errorf("status %d, want 502 (error: %v)", r.status, err)
			}
			member(t, r.body, "code", "upstream_error")
			member(t, r.body, "outcome", "unknown")
			member(t, r.body, "action", "verify")
			checkHidden(t, r.raw)
			if !shipped(t, c.id) {
				t.Fatal("the write did not take effect: the scenario proves nothing")
			}
			t.Logf("error %q", err)
		})
	}
}

func commitThrough(ctx context.Context, pool *pgxpool.Pool, q string) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, q); err != nil {
		return fmt.Errorf("inside the transaction: %w", err)
	}
	op := pgfault.Track(ctx, "COMMIT")
	return op.Err(tx.Commit(ctx))
}
