package pgfault_test

import (
	"context"
	"testing"

	"github.com/faultline-go/faultline/pgfault"
)

const selfCommitSchema = `
CREATE PROCEDURE import_items(ids int[]) LANGUAGE plpgsql AS $$
DECLARE i int;
BEGIN
	FOREACH i IN ARRAY ids LOOP
		INSERT INTO inventory_items VALUES (i, 'imported', 1);
		COMMIT;
	END LOOP;
END $$;
CREATE PROCEDURE restock(p_id int, qtys int[]) LANGUAGE plpgsql AS $$
DECLARE q int;
BEGIN
	FOREACH q IN ARRAY qtys LOOP
		INSERT INTO inventory_items VALUES (p_id, 'restock', q)
			ON CONFLICT (id) DO UPDATE SET qty = excluded.qty;
		COMMIT;
	END LOOP;
END $$;
CREATE PROCEDURE import_slowly(p_id int) LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO inventory_items VALUES (p_id, 'slow', 1);
	COMMIT;
	PERFORM pg_sleep(3);
END $$;
CREATE PROCEDURE import_gated(p_id int) LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO inventory_items VALUES (p_id, 'gated', 1);
	COMMIT;
	RAISE EXCEPTION 'import gate full' USING ERRCODE = 'too_many_connections';
END $$;
CREATE TABLE import_codes (code int);
INSERT INTO import_codes VALUES (7), (7);
`

// TestCommitInside runs statements that commit part of their work inside
// themselves and then fail with a SQLSTATE: the server's error is about the
// failing part, so it does not prove nothing took effect, and the rows show
// that something did. The outcome must be unknown (action verify), never
// not_committed.
func TestCommitInside(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, selfCommitSchema); err != nil {
		t.Fatal(err)
	}
	exists := func(id int) func(*testing.T) bool {
		return func(t *testing.T) bool { return h.count(t, id) == 1 }
	}
	cases := []struct {
		name     string
		q        string
		args     []any
		timeout  string // the session's statement_timeout, if set
		sqlstate string
		status   int
		code     string
		effect   func(*testing.T) bool
		// procedural: raised inside a procedure or DO block, which the
		// error itself shows without an Op.
		procedural bool
	}{
		{name: "CALL, unique violation on the second id", q: "CALL import_items(ARRAY[81, 81])",
			sqlstate: "23505", status: 409, code: "conflict", effect: exists(81), procedural: true},
		{name: "CALL with arguments (extended protocol)", q: "call import_items($1)", args: []any{[]int32{82, 82}},
			sqlstate: "23505", status: 409, code: "conflict", effect: exists(82), procedural: true},
		{name: "CALL, check violation after a commit", q: "CALL restock(83, ARRAY[5, -1])",
			sqlstate: "23514", status: 422, code: "validation_failed", effect: exists(83), procedural: true},
		{name: "CALL, statement_timeout after a commit", q: "CALL import_slowly(84)", timeout: "1s",
			sqlstate: "57014", status: 503, code: "timeout", effect: exists(84), procedural: true},
		{name: "DO block, unique violation after COMMIT", q: "DO $$ BEGIN INSERT INTO inventory_items VALUES (85, 'do', 1); COMMIT; INSERT INTO inventory_items VALUES (85, 'do', 1); END $$",
			sqlstate: "23505", status: 409, code: "conflict", effect: exists(85), procedural: true},
		{name: "DO block, invalid text after COMMIT", q: "do $body$ begin insert into inventory_items values (86, 'do', 1); commit; perform 'many'::int; end $body$",
			sqlstate: "22P02", status: 422, code: "validation_failed", effect: exists(86), procedural: true},
		{name: "statements in one string, COMMIT in the middle", q: "INSERT INTO inventory_items VALUES (87, 'multi', 1); COMMIT; INSERT INTO purchase_orders VALUES (87, 424242)",
			sqlstate: "23503", status: 409, code: "conflict", effect: exists(87)},
		{name: "statements in one string, starting with COMMIT", q: "COMMIT; INSERT INTO inventory_items VALUES (88, 'multi', 1); COMMIT; INSERT INTO inventory_items VALUES (88, 'dup', 1)",
			sqlstate: "23505", status: 409, code: "conflict", effect: exists(88)},
		// Whatever the failing part's SQLSTATE, even one that elsewhere
		// means the session was refused before anything ran.
		{name: "DO block, no such database after COMMIT", q: "DO $$ BEGIN INSERT INTO inventory_items VALUES (89, 'do', 1); COMMIT; EXECUTE 'ALTER DATABASE no_such_db SET work_mem = ''1MB'''; END $$",
			sqlstate: "3D000", status: 500, code: "internal", effect: exists(89), procedural: true},
		{name: "CALL, too_many_connections raised after a commit", q: "CALL import_gated($1)", args: []any{90},
			sqlstate: "53300", status: 503, code: "unavailable", effect: exists(90), procedural: true},
		{name: "statements in one string, no such database after COMMIT", q: "insert into inventory_items values (91, 'multi', 1); commit; alter database no_such_db reset all",
			sqlstate: "3D000", status: 500, code: "internal", effect: exists(91)},
		// A unique index built concurrently over duplicates fails and
		// leaves an invalid index behind: its catalog row committed.
		{name: "CREATE INDEX CONCURRENTLY", q: "CREATE UNIQUE INDEX CONCURRENTLY import_codes_uniq ON import_codes (code)",
			sqlstate: "23505", status: 409, code: "conflict", effect: func(t *testing.T) bool {
				var n int
				if err := h.admin.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'import_codes_uniq'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n == 1
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := h.pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Release()
			if c.timeout != "" {
				if _, err := conn.Exec(ctx, "SET statement_timeout = '"+c.timeout+"'"); err != nil {
					t.Fatal(err)
				}
				defer conn.Exec(ctx, "RESET statement_timeout")
			}
			op := pgfault.Track(ctx, c.q)
			_, err = conn.Exec(ctx, c.q, c.args...)
			if err == nil {
				t.Fatal("the statement did not fail")
			}
			r := h.render(t, op.Err(err))
			if c.procedural {
				// Untracked, the error's context (raised inside PL/pgSQL)
				// is the evidence; the same answer is due.
				u := h.render(t, err)
				member(t, u.body, "outcome", "unknown")
				member(t, u.body, "action", "verify")
			}
			if r.status != c.status {
				t.Errorf("status %d, want %d (error: %v)", r.status, c.status, err)
			}
			member(t, r.body, "code", c.code)
			member(t, r.body, "outcome", "unknown")
			member(t, r.body, "retryable", false)
			member(t, r.body, "action", "verify")
			checkContract(t, r)
			checkHidden(t, r.raw)
			if db, _ := r.log["db"].(map[string]any); db["sqlstate"] != c.sqlstate || db["sent"] != "yes" || db["evidence"] != "refused_after_inner_commit" {
				t.Errorf("log sqlstate %v sent %v evidence %v, want %s yes refused_after_inner_commit", db["sqlstate"], db["sent"], db["evidence"], c.sqlstate)
			}
			if !c.effect(t) {
				t.Fatal("nothing took effect: the scenario does not prove what it claims")
			}
		})
	}
}
