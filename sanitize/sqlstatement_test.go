package sanitize

import (
	"fmt"
	"strings"
	"testing"
)

// leakedStatements are statements that reached a client through Public
// before the recognizer: every verb, in every case, with tabs, line breaks
// and runs of spaces, alone, inside the wrappers of drivers and handlers,
// JSON bodies and Go's %q, and at the start of longer texts.
var leakedStatements = []string{
	// CREATE, ALTER and DROP of every object, in capitals.
	"CREATE USER 'app'@'localhost' IDENTIFIED BY 'hunter2'",
	"ALTER USER app WITH PASSWORD '[redacted]'",
	"failed: CREATE INDEX idx_orders_email ON orders (email)",
	"CREATE UNIQUE INDEX orders_ref_key ON orders (ref)",
	"CREATE VIEW active_users AS SELECT id FROM users",
	"CREATE MATERIALIZED VIEW daily_totals AS SELECT 1",
	"migration 12: DROP INDEX idx_orders_email",
	"ALTER ROLE reporting WITH LOGIN",
	"CREATE SCHEMA billing",
	"CREATE DATABASE shop",
	"DROP DATABASE IF EXISTS shop_test",
	"CREATE SEQUENCE order_seq START 100",
	"CREATE TRIGGER audit_orders AFTER INSERT ON orders",
	"CREATE OR REPLACE FUNCTION touch() RETURNS trigger",
	"DROP PROCEDURE archive_orders",
	"CREATE EXTENSION IF NOT EXISTS pgcrypto",
	"CREATE TYPE mood AS ENUM ('sad', 'ok')",
	"CREATE POLICY tenant_isolation ON orders",
	"DROP VIEW reports",
	"CREATE TEMPORARY TABLE scratch (id int)",
	// The other verbs in capitals, anywhere.
	"exec: GRANT ALL ON orders TO app",
	"GRANT SELECT, INSERT ON orders TO reporting",
	"REVOKE UPDATE ON accounts FROM intern",
	"TRUNCATE audit_log failed",
	"TRUNCATE TABLE sessions",
	"MERGE INTO accounts a USING staging s ON a.id = s.id",
	"WITH recent AS (SELECT id FROM orders) SELECT * FROM recent",
	"COPY orders FROM STDIN",
	"EXPLAIN ANALYZE SELECT * FROM orders",
	"CALL archive_orders(2024)",
	"SET ROLE admin",
	"REPLACE INTO settings (k, v) VALUES ('a', 'b')",
	"UPSERT INTO kv (k, v) VALUES (1, 2)",
	"worker 3 ran GRANT USAGE ON SCHEMA billing TO app and failed",
	"SELECT\tid\tFROM\tusers",
	"UPDATE\naccounts\nSET balance = 0",
	// Lower and mixed case where a statement leads.
	"select id from users where email = 'a@b.c'",
	"insert into orders (id, email) values ($1, $2)",
	"delete from sessions where user_id = 7",
	"update accounts set balance = 0 where id = 3",
	"Select id, name From users Where id = 1",
	"sElEcT * fRoM orders",
	"select count(*) from orders where status = 'open'",
	"select u.id, u.email as mail from users u join orders o on o.user_id = u.id",
	"select distinct region from stores order by region",
	"select id\nfrom users\nwhere active = true", "select id from users where is_active",
	"select   id ,  email   from   users   limit 10",
	"insert into public.orders values (1, 'x')",
	"insert ignore into users (id) values (1)",
	"update users u set u.name = 'x'",
	"delete from audit_log;",
	"merge into accounts using staging on accounts.id = staging.id",
	"with totals as (select sum(amount) from orders) select * from totals",
	"create table orders (id bigint primary key)",
	"create user app_rw identified by 'x'",
	"create index on orders (email)",
	"alter table orders add column note text",
	"drop table orders",
	"drop table if exists orders cascade",
	"grant select on orders to reporting",
	"grant select, update on table orders to app",
	"revoke all on orders from app",
	"truncate table sessions",
	"truncate audit_log",
	"copy orders from stdin",
	"explain select * from orders",
	"call refresh_totals()",
	"set role app_admin",
	// Wrappers, quotes, JSON bodies, longer texts.
	"query failed: select id from users where id = $1",
	"pq: select id from users",
	"load order: insert into orders (id) values ($1): connection reset",
	`{"error":"select id, email from users where id = 7"}`,
	`{"error":"delete from sessions where user_id = 7","code":500}`,
	`exec "update accounts set balance = 0 where id = 3": deadlock`,
	fmt.Sprintf("query %q failed", "select * from orders where id = 1"),
	fmt.Sprintf("query %q failed", "select id\nfrom users"),
	"run migration (create table audit (id int)) failed",
	"orm: 'select id from users where email = ?' took 12s",
	"store:\n  select id from users where email = $1",
	"select id from users where email = $1 returned no rows and the caller retried three times before giving up",
	// More shapes of each verb.
	"ran GRANT\tALL\tON\torders\tTO\tapp", "x WITH\trecent\tAS\t(SELECT 1)", "x REVOKE ALL\nON orders\nFROM app", "MERGE\tINTO t USING s",
	"select * from users", "Select * From Users", "with cte as (select 1) select * from cte",
	"insert into users(id) values(1)", "update users set name='x' where id=1", "delete from users where id=1",
	"truncate table users", "drop table users;", "alter table users add column x int",
	"create table if not exists users (id int)", "GRANT ALL PRIVILEGES ON DATABASE shop TO app",
	"grant all privileges on database shop to app", "revoke select on orders from app", "call my_proc(1)",
	"explain analyze select * from t", "set role admin", "SELECT id FROM users WHERE id = 1 -- comment",
	"error: select id from \"users\" where id = 1", "db: SELECT\n  id\nFROM\n  users", "pq: duplicate key",
	"failed to execute query: UPDATE users SET name = $1 WHERE id = $2",
	`sql: {"query":"insert into t (a) values (1)"}`, "exec: \"delete from t where id = 1\"",
	"ALTER TABLE orders ADD COLUMN note text", "CREATE TABLE orders (id int)", "drop index idx_a",
	"DROP TABLE IF EXISTS orders", "create view v as select 1", "create or replace view v as select * from t",
	"create unique index idx on t (a)", "alter user app with password 'x'",
	"create role app login password 'x'", "create database shop", "create schema billing",
	"create extension pgcrypto", "merge into t using s on t.id = s.id when matched then update set a = 1",
	"upsert into t (a) values (1)", "replace into t (a) values (1)", "copy t from stdin", "copy t to stdout",
	"copy (select * from t) to stdout", "SET ROLE app", "with x as (select 1) insert into t select * from x",
	"SELECT 1", "select now()", "select count(*) from orders", "select a.* from a",
	"Select Id From Users Order By Id", "select id from users u where u.id = 1", "select id, name\tfrom\tusers",
	"query: select\n\tid\nfrom\n\tusers\nwhere\n\tid = 1", "(delete from t where id = 1)",
	"'update t set a = 1'", "GRANT reader TO app", "REVOKE reader FROM app", "grant reader to app_user",
	"truncate orders;", "TRUNCATE orders", "EXPLAIN SELECT 1", "CALL p()",
	"create trigger t after insert on orders for each row execute function f()",
	"create function f() returns int as $$ select 1 $$ language sql",
	"create procedure p() language sql as $$ select 1 $$", "create sequence s", "create type t as enum ('a')",
	"create policy p on t using (true)", "drop user app", "drop role app", "DROP USER app",
	"alter role app rename to app2", "create materialized view mv as select 1",
}

// keptProse are sentences that start with a verb of SQL, or hold one
// after a colon, a quote or a parenthesis, in every case: none is a
// statement, and Public keeps each as it is.
var keptProse = []string{
	"Please select a plan from the list below",
	"failed to delete from cache",
	"update your settings and retry",
	"could not create user alice: name taken",
	"grant access to the team in the console",
	"drop us a line",
	"Select one from the menu",
	"truncate the log file",
	"with the new plan as the default",
	"Select a file from your computer",
	"select the region from the dropdown and retry",
	"Update the app from the store to continue",
	"update failed: try again later",
	"Delete from the trash to free space",
	"delete the draft from the editor first",
	"Insert into the form the code we sent you",
	"insert the card into the reader",
	"Create a new project from the dashboard",
	"create an account to continue",
	"Alter the schedule from the settings page",
	"Drop the file here to upload it",
	"Grant the app access to your calendar",
	"Revoke access from the devices you no longer use",
	"Truncate the message to 160 characters",
	"Merge into the main branch after review",
	"merge the two accounts in the console",
	"With this plan you get 10 seats",
	"with regards, the team",
	"Copy the link from the share menu",
	"copy failed: disk full",
	"Explain why the payment failed to the customer",
	"Call us on weekdays",
	"call support (24/7) for help",
	"Set the role of the member in the console",
	"set a password to continue",
	"Replace the battery and try again",
	"upsert failed: conflict on key",
	"error: select a plan from the list",
	"error: update your settings and retry",
	`{"error":"select an option from the menu"}`,
	`{"message":"create a token in the console first"}`,
	"hint: grant access to the team in the console",
	"(select one) is required",
	`validation: "delete from" is not a valid action`,
	"The update of the order set off a refund",
	"Selected from 3 options: none matched",
	"the table was dropped from the report",
	"DROP US A LINE",
	"with: the new plan as the default",
	"call: the number you dialed is not in service",
	"Tip: delete from trash where possible", "hint: select files from disk where needed",
	"note: select items from stock for free", "Select files from the list in order",
	// More sentences that open with a verb, or name one after a colon.
	"select an option", "Select your country", "update available", "Update now",
	"update: the system will restart", "delete account", "Delete this item?", "create: missing name",
	"Create your first project", "drop: invalid target", "grant: permission denied", "set: value required",
	"copy: cannot stat file", "call failed: timeout", "explain: no plan", "with: unexpected token",
	"merge conflict in main.go", "truncated output", "Insert coin", "insert: duplicate",
	"Set the value and retry", "set up your account from the settings page", "copy the code from your email",
	"call the API from your backend where possible", "select from the options below", "Select from the list",
	"delete from: invalid", "update the user set in the config", "with care: the team",
	"The order was created with the new plan", "create a user with admin rights", "grant the role to alice",
	"drop the table from the report where needed", "select all from the menu", "Select All from the menu",
	"(select one)", "\"update\" is not allowed", "'delete' is not a valid verb", "alter ego",
	"replace the value with a new one", "explain the error to the user", "set role: missing",
	"call us at 555-0100", "update your email address",
}

func TestStatementsBecomeGeneric(t *testing.T) {
	if len(leakedStatements) < 60 {
		t.Fatalf("%d statements: the test no longer covers the class", len(leakedStatements))
	}
	for _, s := range leakedStatements {
		if got := Public(s); got != GenericDetail {
			t.Errorf("Public(%q) = %q, want %q", s, got, GenericDetail)
		}
	}
}

func TestStatementProseKept(t *testing.T) {
	if len(keptProse) < 40 {
		t.Fatalf("%d sentences: the test no longer covers prose", len(keptProse))
	}
	for _, s := range keptProse {
		if got := Public(s); got != s {
			t.Errorf("Public(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestStatementLeadsOnly checks where a statement in lower case counts:
// where it leads, and nowhere else, so that a sentence that names one in
// passing keeps its words.
func TestStatementLeadsOnly(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"select id from users where id = 1", true},
		{"  select id from users where id = 1", true},
		{"load: select id from users where id = 1", true},
		{`"select id from users where id = 1"`, true},
		{"(select id from users where id = 1)", true},
		{"we ran select id from users where id = 1", false},
		{"the job will update accounts set to expire", false},
		{"SELECT id FROM users", true},
		{"we ran SELECT id FROM users", true},
		{"we ran GRANT ALL ON orders TO app", true},
		{"Selecting from users", false},
	} {
		if got := sqlStatement(tc.in); got != tc.want {
			t.Errorf("sqlStatement(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestStatementCaseFolds checks a statement in every case of its
// keywords where it leads.
func TestStatementCaseFolds(t *testing.T) {
	const s = "select id from users where id = 1"
	for mask := range 64 {
		b := []byte(s)
		for k := range 6 {
			if mask&(1<<k) != 0 {
				b[k] -= 'a' - 'A'
			}
		}
		if got := Public(string(b)); got != GenericDetail {
			t.Errorf("Public(%q) = %q, want %q", b, got, GenericDetail)
		}
	}
	if got := Public(strings.ToUpper(s)); got != GenericDetail {
		t.Errorf("Public(%q) = %q", strings.ToUpper(s), got)
	}
}

// TestStatementRescan checks rescan against a full scan around every edit
// of the statements and sentences above, as TestRescanCoversScan does for
// its corpus: the checks at a lead and at a password's quote read within
// the prefilter's bounds.
func TestStatementRescan(t *testing.T) {
	texts := append(append([]string{}, leakedStatements...), keptProse...)
	texts = append(texts, "x: \\n\\n\\n\\ntruncate table t", "CREATE USER a IDENTIFIED WITH caching_sha2_password BY 'x'")
	for _, sc := range []*scanner{publicScanner, logScanner} {
		for _, s := range texts {
			f := sc.scan(s)
			for i := 0; i <= len(s); i++ {
				for j := i; j <= len(s) && j <= i+12; j += 3 {
					for _, with := range []string{"", Redacted, " ", ":"} {
						edited := s[:i] + with + s[j:]
						if miss := sc.scan(edited) &^ sc.rescan(s, f, edited); miss != 0 {
							t.Fatalf("rescan(%q -> %q) misses %b", s, edited, miss)
						}
					}
				}
			}
		}
	}
}
