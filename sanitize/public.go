package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Public returns s made safe to show a client: secrets, IP addresses,
// internal host names and file system paths are replaced with Redacted, and
// anything resembling a stack trace (Go, Python, Java, Node, Rust, ...), a
// database statement or a database driver message becomes GenericDetail.
// A secret hidden behind escapes ("\nghp_...", "\u0073k_live_...",
// "%67hp_...") is found too; text that held one may come back with its
// escapes decoded.
// It is applied to every string that leaves in a problem, so the common case,
// clean text, returns s itself without allocating.
func Public(s string) string {
	out, f := publicScan(s)
	if f&fEscape == 0 {
		return out
	}
	return unhideEscaped(s, out, publicText, publicScanner)
}

func publicText(s string) string {
	out, _ := publicScan(s)
	return out
}

// publicScan returns the public tier's text for s and the flags of s, as
// logScan does.
func publicScan(s string) (string, flags) {
	f := fEscape | fNonASCII
	if len(s) <= MaxPublicLen {
		k, found := plainPrefix(s)
		if k == len(s) {
			return s, 0
		}
		// Only text that holds a byte from 0x80 up can be invalid UTF-8,
		// and the scan finds any (fNonASCII): ASCII text, the common case,
		// is not read again to be validated. Invalid text is scanned again
		// by settle once it was made valid; a public text is short.
		var first kvFirst
		f = first.settle(withURL(found | publicScanner.scanFirst(s, k, publicScanner.want&^found, &first)))
		if f&fNonASCII != 0 && !utf8.ValidString(s[k:]) {
			f = fEscape | fNonASCII
		} else if f&publicFlags == 0 {
			return s, f
		} else if first.found {
			return settleRead(s, f, MaxPublicLen, publicScanner, first.publicPass, &first), f
		}
	}
	return settle(s, f, MaxPublicLen, publicScanner, publicPass), f
}

func publicPass(s string, f flags) (string, bool) { return (*kvFirst)(nil).publicPass(s, f) }

// publicPass is the public tier's pass over a text whose first pair of
// the key-value rule k may have read.
func (k *kvFirst) publicPass(s string, f flags) (string, bool) {
	if f&fStack != 0 || f&fSQL != 0 && databaseMessage(s) {
		return GenericDetail, false
	}
	r := passRun{first: k}
	// databaseMessage ran: on other text it may decide otherwise.
	r.ran = f&fSQL != 0
	// Only a private key spans lines, so it goes before the rules that
	// read to the end of one.
	if f&fPEM != 0 {
		s = r.note(s, pemRule.redact(s))
	}
	s = redactSecrets(s, f&^fPEM, &r)
	if f&fPath != 0 {
		s = r.note(s, redactPaths(s))
	}
	if f&fHost != 0 {
		s = r.note(s, redactHosts(s))
	}
	if f&fIP != 0 {
		s = r.noteOpen(s, redactIPs(s))
	}
	return s, r.closed()
}

// databaseMarkers occur only in database statements and in the messages
// of database drivers (PostgreSQL, MySQL, SQL Server, SQLite, Oracle,
// database/sql): such a message names tables, columns, constraints and row
// values, and no part of it is meant for a client.
var databaseMarkers = []string{
	"SQLSTATE", "duplicate key", `relation "`, `column "`, `constraint "`, `at or near "`, "Duplicate entry '", "Key (", "Failing row contains (",
	"error in your SQL syntax", "sql: Scan error", "converting driver.Value",
	"UNIQUE constraint failed", "NOT NULL constraint failed", "FOREIGN KEY constraint failed",
	"CHECK constraint failed", "a foreign key constraint fails", "pq: ", "mssql: ", "ORA-0", "ORA-1", "ORA-2",
	"no such table: ", "no such column: ", "ambiguous column name: ", "Invalid object name '", "Invalid column name '",
	"INSERT INTO ", "DELETE FROM ", "CREATE TABLE ", "ALTER TABLE ", "DROP TABLE ", "TRUNCATE TABLE ",
}

// markerPairs holds the first two bytes of every database marker, as a
// bit set indexed by the pair, and markersByFirst the markers by first
// byte.
var markerPairs, markersByFirst = func() (pairs [1 << 16 / 64]uint64, byFirst [256][]string) {
	for _, m := range databaseMarkers {
		p := uint16(m[0]) | uint16(m[1])<<8
		pairs[p>>6] |= 1 << (p & 63)
		byFirst[m[0]] = append(byFirst[m[0]], m)
	}
	return pairs, byFirst
}()

// hasDatabaseMarker reports whether s holds one of databaseMarkers, in one
// pass that compares only the markers whose first two bytes stand at a
// place: a search of the whole text for each of them cost forty reads of
// it (TestHasDatabaseMarker).
func hasDatabaseMarker(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		p := uint16(s[i]) | uint16(s[i+1])<<8
		if markerPairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, m := range markersByFirst[s[i]] {
			if strings.HasPrefix(s[i:], m) {
				return true
			}
		}
	}
	return false
}

// databaseMessage reports whether s holds a database statement or a
// driver message. Statements need their grammar too (sqlStatement), so
// prose that starts with "Select" passes.
func databaseMessage(s string) bool {
	// The marker pass, the two searches for SQLite's quote, the scan of
	// the parentheses and the two for MySQL's quote each read s once, and
	// a MySQL error a few bytes more; sqlStatement reports its own.
	spend(len(s) * 8)
	if hasDatabaseMarker(s) || sqlStatement(s) {
		return true
	}
	// SQLite quotes a piece of the statement: near "SELEC": syntax error.
	if i := strings.Index(s, `near "`); i >= 0 && strings.Contains(s[i:], `": syntax error`) {
		return true
	}
	// MySQL numbers its errors: "Error 1146 (42S02): Table 'shop.x' doesn't
	// exist". A refused login ("Access denied for user ...") names no
	// schema and tells the client what went wrong, so it stays.
	for i := 0; ; {
		k := strings.IndexByte(s[i:], '(')
		if k < 0 {
			break
		}
		if mysqlErrorAt(s, i+k) && !strings.HasPrefix(s[i+k+7:], ": Access denied") {
			return true
		}
		i += k + 1
	}
	// MySQL quotes the statement from the error on: "near '...' at line 1".
	if end := strings.LastIndex(s, "' at line "); end >= 0 {
		for i := 0; ; {
			k := strings.Index(s[i:end], "near '")
			if k < 0 {
				break
			}
			if wordStart(s, i+k) {
				return true
			}
			i += k + 1
		}
	}
	return false
}

// mysqlErrorAt reports whether the '(' at s[i] opens the SQLSTATE of a
// MySQL or MariaDB numbered error: "Error 1146 (42S02): ...", as the Go
// driver and the command-line client ("ERROR 1054 (42S22) at line 1: ...")
// write it.
func mysqlErrorAt(s string, i int) bool {
	d := i - 1
	if d < 1 || s[d] != ' ' {
		return false
	}
	n := d
	for n > 0 && d-n < 5 && isDigit(s[n-1]) {
		n--
	}
	if d-n < 4 || n < 6 || s[n-1] != ' ' || !hasSuffixFold(s[:n-1], "error") || !wordStart(s, n-6) {
		return false
	}
	if i+7 > len(s) || s[i+6] != ')' {
		return false
	}
	for _, c := range []byte(s[i+1 : i+6]) {
		if !isDigit(c) && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
