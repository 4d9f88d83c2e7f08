package pgfault

import (
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT * FROM users WHERE email = 'a@b.c' AND id = 42", "SELECT * FROM users WHERE email = ? AND id = ?"},
		{"insert into t values ($1, 'it''s', -3.5e10, .5, 0x1F)", "insert into t values ($1, ?, -?, ?, ?)"},
		{"SELECT E'a\\'b', B'1010', X'ff', N'x', U&'d\\0061t'", "SELECT ?, ?, ?, ?, ?"},
		{"SELECT $$secret$$, $tag$ a $$ b $tag$, $1", "SELECT ?, ?, $1"},
		{"SELECT 1 -- password=hunter2\n, 2 /* token /* nested */ abc */ FROM t", "SELECT ? , ? FROM t"},
		{"  SELECT\n\t\"Weird \"\"name\"\"\" ,col2 FROM  t9  ", "SELECT \"Weird \"\"name\"\"\" ,col2 FROM t9"},
		{"SELECT 'unterminated secret", "SELECT ?"},
		{"SELECT $$unterminated secret", "SELECT ?"},
		{"UPDATE t SET n = n + 1 WHERE id = ANY($1) AND x1 = 7", "UPDATE t SET n = n + ? WHERE id = ANY($1) AND x1 = ?"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Fingerprint(c.in); got != c.want {
			t.Errorf("Fingerprint(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestFingerprintBounded(t *testing.T) {
	long := "SELECT " + strings.Repeat("col, ", 1000) + "x FROM t"
	got := Fingerprint(long)
	if len(got) > maxFingerprint+len("...") || !strings.HasSuffix(got, "...") {
		t.Fatalf("len %d, suffix %q", len(got), got[len(got)-5:])
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		sql     string
		want    Access
		commits bool
	}{
		{"SELECT 1", Read, false},
		{"  (select * from t) union (select * from u)", Read, false},
		{"/* hi */ WITH x AS (SELECT 1) SELECT * FROM x", Read, false},
		{"VALUES (1), (2)", Read, false},
		{"TABLE t", Read, false},
		{"show work_mem", Read, false},
		{"SELECT id FROM t FOR UPDATE", Read, false},
		{"SELECT id FROM t FOR NO KEY UPDATE SKIP LOCKED", Read, false},
		{"select id from t for no key update of t nowait", Read, false},
		// UPDATE is a lock only right after FOR or FOR NO KEY.
		{"WITH old AS (SELECT value FROM settings WHERE key = $1) UPDATE settings SET value = $2 WHERE key = $1", Write, false},
		{"WITH c AS (SELECT 1 AS key) UPDATE t SET v = 1", Write, false},
		{"with c as (select id from t order by Key) update t set v = 1 from c where t.id = c.id", Write, false},
		{"WITH c AS (SELECT id FROM t WHERE \"for\" = 1 AND for_x) UPDATE t SET v = 1", Write, false},
		{"WITH c AS (SELECT id FROM t FOR UPDATE) UPDATE t SET v = 1", Write, false},
		{"SELECT 'DELETE FROM t'", Read, false},
		{"WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", Write, false},
		{"SELECT * INTO backup FROM t", Write, false},
		{"SELECT 1; DELETE FROM t", Write, true},
		{"SELECT 1; SELECT 2;", Read, true},
		{"SELECT 1;;  ; ", Read, false},
		{"INSERT INTO t VALUES (1)", Write, false},
		{"update t set a = 1", Write, false},
		{"BEGIN; INSERT INTO t VALUES (1); COMMIT", Write, true},
		{"COMMIT", Write, false},
		{"CALL proc()", Write, true},
		{"  /* import */ call import_orders(ARRAY[1, 1])", Write, true},
		{"DO $$ BEGIN INSERT INTO t VALUES (1); COMMIT; END $$", Write, true},
		{"do language plpgsql 'begin perform 1; end'", Write, true},
		{"COMMIT; INSERT INTO t VALUES (1)", Write, true},
		{"CREATE UNIQUE INDEX CONCURRENTLY t_a ON t (a)", Write, true},
		{"REINDEX INDEX concurrently t_a", Write, true},
		{"SELECT dblink_exec('remote', 'INSERT INTO t VALUES (1)')", Write, true},
		{"SELECT * FROM DBLINK('remote', 'SELECT 1') AS r(a int)", Write, true},
		{"SELECT 'CALL x()', 'a; COMMIT; b' FROM t", Read, false},
		{"SELECT docs FROM t WHERE done", Read, false},
		{"", Write, false},
		{"-- only a comment", Write, false},
		{"'literal first'", Write, false},
		// A read calls only PostgreSQL's own reading functions.
		{"SELECT charge_card(42)", Write, false},
		{"select billing.charge_card($1)", Write, false},
		{`SELECT "ChargeCard"(42)`, Write, false},
		{"SELECT nextval('orders_id_seq')", Write, false},
		{"SELECT pg_notify('orders', 'x')", Write, false},
		{"SELECT id FROM orders WHERE charge_card(id)", Write, false},
		{"SELECT count(*), max(total) FILTER (WHERE paid) FROM orders WHERE id IN (1, 2)", Read, false},
		{"SELECT lower(email), COALESCE(name, '') FROM users WHERE EXISTS (SELECT 1 FROM t)", Read, false},
		{"SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t", Read, false},
		{"SELECT CAST(x AS numeric(10, 2)), now() FROM t JOIN u ON (t.id = u.id)", Read, false},
		{"WITH x AS (SELECT 1) SELECT * FROM x WHERE (a OR b) AND NOT (c)", Read, false},
	}
	for _, c := range cases {
		if got, commits := classify(c.sql); got != c.want || commits != c.commits {
			t.Errorf("classify(%q) = %v, %v; want %v, %v", c.sql, got, commits, c.want, c.commits)
		}
	}
}

// FuzzFingerprint checks, for any input, that the fingerprint is bounded,
// keeps no string literal's content and is stable when applied again, so
// fingerprints can be grouped.
func FuzzFingerprint(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM users WHERE email = 'a@b.c'",
		"SELECT $$x$$, $a$ $$ $a$, E'\\'', 1e5, .5",
		"/* /* */ */ -- x\nSELECT 1",
		"SELECT \"a\"\"b\" FROM t WHERE x = U&'\\0041'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		fp := Fingerprint(sql)
		if len(fp) > maxFingerprint+len("...") {
			t.Fatalf("fingerprint of %d bytes", len(fp))
		}
		const secret = "s3cr3tvalue"
		withLiteral := "SELECT '" + secret + "', " + sql
		if strings.Contains(sql, secret) {
			return
		}
		if got := Fingerprint(withLiteral); strings.Contains(got, secret) {
			t.Fatalf("literal kept: %q -> %q", withLiteral, got)
		}
		if !strings.HasSuffix(fp, "...") && Fingerprint(fp) != fp {
			t.Fatalf("not stable: %q -> %q -> %q", sql, fp, Fingerprint(fp))
		}
		_, _ = classify(sql)
	})
}
