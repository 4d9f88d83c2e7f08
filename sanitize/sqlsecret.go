package sanitize

// A statement that creates or alters an account carries its password in
// a string literal: MySQL's IDENTIFIED BY '...' (or IDENTIFIED WITH
// mysql_native_password BY '...'), PostgreSQL's [ENCRYPTED] PASSWORD
// '...'. The log tier keeps the statement, so the literal is redacted in
// both tiers, read as SQL reads it: a doubled quote ('p@ss''w0rd') or an
// escaped one stays inside.

// statementPasswordAt reports whether the quote at s[q] opens the password
// of a statement: one space before it (escaped inside a JSON string), after
// PASSWORD, IDENTIFIED BY or an authentication plugin's BY, whole words in
// any case. It reads no more than a plugin's name back.
func statementPasswordAt(s string, q int) bool {
	sp := q - 1
	if s[q] == '"' && sp > 0 && s[sp] == '\\' {
		sp--
	}
	if sp < 1 || s[sp] != ' ' {
		return false
	}
	k := s[:sp]
	if wordSuffixFold(k, "password") {
		return true
	}
	if !wordSuffixFold(k, "by") || len(k) < 4 || k[len(k)-3] != ' ' {
		return false
	}
	k = k[:len(k)-3]
	// The plugins that take a password all name it: mysql_native_password,
	// caching_sha2_password, sha256_password.
	return wordSuffixFold(k, "identified") || hasSuffixFold(k, "_password")
}

// wordSuffixFold reports whether s ends with the word w, in any case.
func wordSuffixFold(s, w string) bool {
	return hasSuffixFold(s, w) && (len(s) == len(w) || !isWordByte(s[len(s)-len(w)-1]))
}

// sqlStringEnd returns where the literal opened by the quote at s[q]
// ends: at its closing quote, which a space, punctuation or the end of the
// text follows (a quote between letters is the value's, as a password
// pasted unescaped holds one), or at the end of the line when none
// closes it.
func sqlStringEnd(s string, q int) int {
	quote, escaped := s[q], q > 0 && s[q] == '"' && s[q-1] == '\\'
	for i := q + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || c == '\r':
			return i
		case c == '\\' && escaped && i+1 < len(s) && s[i+1] == quote:
			return i
		case c == '\\' && !escaped:
			i++
		case c == quote && i+1 < len(s) && s[i+1] == quote:
			i++
		case c == quote && (i+1 == len(s) || closesLiteral[s[i+1]]):
			return i
		}
	}
	return len(s)
}

// closesLiteral are the bytes that may follow the quote that closes a
// statement's literal.
var closesLiteral = byteSet(" \t\r\n;,:.)]}\"'\\")

// redactStatementPasswords replaces the password literals of statements
// (statementPasswordAt) with Redacted, but not a placeholder. The two
// quotes are found by a search each, which a text with few quotes passes
// in a few instructions per eight bytes.
func redactStatementPasswords(s string) string {
	single, double := indexFrom(s, 0, '\''), indexFrom(s, 0, '"')
	e := edit{s: s}
	for {
		q := min(single, double)
		if q == len(s) {
			return e.result()
		}
		if q == single {
			single = indexFrom(s, q+1, '\'')
		} else {
			double = indexFrom(s, q+1, '"')
		}
		if q < e.last || !statementPasswordAt(s, q) {
			continue
		}
		vs, ve := q+1, sqlStringEnd(s, q)
		spend(ve - q)
		if ve > vs && !placeholderAt(s, vs, ve) {
			e.replace(vs, ve, Redacted)
		}
		e.last = ve
	}
}
