package sanitize

import (
	"strings"
	"testing"
)

// statementPasswords are the passwords TestStatementPasswords sets, with
// each as a statement's literal writes it.
var statementPasswords = []struct{ secret, literal string }{
	{"hunter2", "hunter2"},
	{"Xk29dLq8ZpW3mN7vB4cT6yH1", "Xk29dLq8ZpW3mN7vB4cT6yH1"},
	{"p@ss'w0rd", "p@ss''w0rd"},
	{`p@ss'w0rd`, `p@ss\'w0rd`},
	{"a b;c,d", "a b;c,d"},
}

// TestStatementPasswords checks that the log tier keeps a statement that
// sets a password but not the password, and that the public tier shows
// neither.
func TestStatementPasswords(t *testing.T) {
	formats := []struct{ in, log string }{
		{"CREATE USER 'app'@'localhost' IDENTIFIED BY '%s'", "CREATE USER 'app'@'localhost' IDENTIFIED BY '[redacted]'"},
		{`CREATE USER 'app'@'%%' IDENTIFIED BY "%s"`, `CREATE USER 'app'@'%%' IDENTIFIED BY "[redacted]"`},
		{"ALTER USER 'app'@'%%' IDENTIFIED WITH mysql_native_password BY '%s'", "ALTER USER 'app'@'%%' IDENTIFIED WITH mysql_native_password BY '[redacted]'"},
		{"alter user app identified with caching_sha2_password by '%s';", "alter user app identified with caching_sha2_password by '[redacted]';"},
		{"ALTER ROLE app WITH PASSWORD '%s'", "ALTER ROLE app WITH PASSWORD '[redacted]'"},
		{"CREATE ROLE app WITH LOGIN ENCRYPTED PASSWORD '%s' VALID UNTIL 'infinity'", "CREATE ROLE app WITH LOGIN ENCRYPTED PASSWORD '[redacted]' VALID UNTIL 'infinity'"},
		{"migrate: create user app_rw identified by '%s': exit status 1", "migrate: create user app_rw identified by '[redacted]': exit status 1"},
		{`{"error":"ALTER USER app IDENTIFIED BY \"%s\""}`, `{"error":"ALTER USER app IDENTIFIED BY \"[redacted]\""}`},
	}
	for _, f := range formats {
		for _, pw := range statementPasswords {
			if strings.Contains(f.in, `\"`) && strings.ContainsAny(pw.literal, `\'`) {
				continue
			}
			in := strings.Replace(strings.ReplaceAll(f.in, "%%", "%"), "%s", pw.literal, 1)
			want := strings.ReplaceAll(f.log, "%%", "%")
			if got := Log(in); got != want {
				t.Errorf("Log(%q) = %q, want %q", in, got, want)
			}
			if got := Public(in); strings.Contains(got, pw.secret) || strings.Contains(got, pw.literal) {
				t.Errorf("Public(%q) = %q holds the password", in, got)
			}
		}
	}
}

// TestStatementPasswordOutsideStatement checks the literal after
// IDENTIFIED BY wherever it stands, and what stays: a placeholder, and a
// BY that no IDENTIFIED or plugin precedes.
func TestStatementPasswordOutsideStatement(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"account setup failed near IDENTIFIED BY 'hunter2'", "account setup failed near IDENTIFIED BY '[redacted]'"},
		{"IDENTIFIED BY '${DB_PASSWORD}'", "IDENTIFIED BY '${DB_PASSWORD}'"},
		{"sorted by 'name' first", "sorted by 'name' first"},
		{"rows grouped by 'region'", "rows grouped by 'region'"},
	} {
		if got := Log(tc.in); got != tc.want {
			t.Errorf("Log(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Public(tc.in); got != tc.want {
			t.Errorf("Public(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestStatementPasswordsFlagged checks that the prefilter of either tier
// flags every cut of a text whose password the rule redacts, and that
// the rule leaves its own output as it is.
func TestStatementPasswordsFlagged(t *testing.T) {
	texts := []string{
		"CREATE USER 'app'@'localhost' IDENTIFIED BY 'hunter2'",
		"ALTER USER app IDENTIFIED WITH mysql_native_password BY 'p@ss''w0rd'",
		`{"sql":"ALTER ROLE app WITH ENCRYPTED PASSWORD \"Xk29dLq8\""}`,
	}
	for _, s := range texts {
		for i := range s {
			for _, cut := range []string{s[:i], s[i:]} {
				out := redactStatementPasswords(cut)
				if out == cut {
					continue
				}
				if again := redactStatementPasswords(out); again != out {
					t.Fatalf("redactStatementPasswords(%q) = %q, then %q", cut, out, again)
				}
				for _, sc := range []*scanner{publicScanner, logScanner} {
					if sc.scan(cut)&fSQLSecret == 0 {
						t.Fatalf("%q: the rule redacts it, the scan does not flag it", cut)
					}
				}
			}
		}
	}
}
