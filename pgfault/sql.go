package pgfault

import (
	"strings"
)

// The lexer below knows just enough of PostgreSQL's syntax to find
// literals, words and comments: it never decides whether a statement is
// valid, and on anything it does not recognise it moves one byte on, so
// any input terminates.

type tokenKind uint8

const (
	tokSpace   tokenKind = iota // whitespace and comments
	tokWord                     // keyword or bare identifier
	tokQuoted                   // "quoted identifier"
	tokLiteral                  // string, dollar-quoted string, number, bit/hex string
	tokParam                    // $1
	tokOther                    // punctuation and operators, one byte
)

// nextToken returns the kind of the token starting at i and where it ends.
func nextToken(s string, i int) (tokenKind, int) {
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		j := i + 1
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return tokSpace, j
	case c == '-' && i+1 < len(s) && s[i+1] == '-':
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return tokSpace, len(s)
		}
		return tokSpace, i + j + 1
	case c == '/' && i+1 < len(s) && s[i+1] == '*':
		return tokSpace, blockCommentEnd(s, i)
	case c == '\'':
		return tokLiteral, quoteEnd(s, i, false)
	case (c == 'e' || c == 'E') && i+1 < len(s) && s[i+1] == '\'':
		return tokLiteral, quoteEnd(s, i+1, true)
	case (c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && i+1 < len(s) && s[i+1] == '\'':
		return tokLiteral, quoteEnd(s, i+1, false)
	case (c == 'u' || c == 'U') && i+2 < len(s) && s[i+1] == '&' && s[i+2] == '\'':
		return tokLiteral, quoteEnd(s, i+2, false)
	case c == '"':
		return tokQuoted, identEnd(s, i)
	case c == '$':
		if i+1 < len(s) && isDigit(s[i+1]) {
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			return tokParam, j
		}
		if j, ok := dollarQuoteEnd(s, i); ok {
			return tokLiteral, j
		}
		return tokOther, i + 1
	case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
		return tokLiteral, numberEnd(s, i)
	case isWordStart(c):
		j := i + 1
		for j < len(s) && isWordPart(s[j]) {
			j++
		}
		return tokWord, j
	}
	return tokOther, i + 1
}

func blockCommentEnd(s string, i int) int {
	depth := 0
	for j := i; j+1 < len(s); j++ {
		switch {
		case s[j] == '/' && s[j+1] == '*':
			depth++
			j++
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// quoteEnd returns the end of the string literal whose opening quote is at
// i. An unterminated literal runs to the end, so its tail is never taken
// for SQL.
func quoteEnd(s string, i int, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

func identEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == '"' {
			if j+1 < len(s) && s[j+1] == '"' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// dollarQuoteEnd recognises $$...$$ and $tag$...$tag$.
func dollarQuoteEnd(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && s[j] != '$' {
		if !isWordPart(s[j]) || s[j] == '$' || (j == i+1 && isDigit(s[j])) {
			return 0, false
		}
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	tag := s[i : j+1]
	if k := strings.Index(s[j+1:], tag); k >= 0 {
		return j + 1 + k + len(tag), true
	}
	return len(s), true
}

func numberEnd(s string, i int) int {
	j := i
	if s[j] == '0' && j+1 < len(s) && (s[j+1]|0x20 == 'x' || s[j+1]|0x20 == 'o' || s[j+1]|0x20 == 'b') {
		j += 2
		for j < len(s) && (isWordPart(s[j])) {
			j++
		}
		return j
	}
	for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == '_') {
		j++
	}
	if j < len(s) && s[j]|0x20 == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			j = k
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
	}
	return j
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isWordPart(c byte) bool { return isWordStart(c) || isDigit(c) || c == '$' }

// maxFingerprint bounds the log record: a generated statement with
// thousands of placeholders says all it has to say in its first part.
const maxFingerprint = 512

// Fingerprint returns sql with every literal (strings, dollar-quoted
// bodies, numbers, bit and hex strings) replaced by ?, comments dropped and
// whitespace collapsed, so the statement's shape can be logged and grouped
// without the values in it. Identifiers and $n parameters are kept.
func Fingerprint(sql string) string {
	var b strings.Builder
	b.Grow(min(len(sql), maxFingerprint+len("...")))
	space := false
	for i := 0; i < len(sql); {
		kind, j := nextToken(sql, i)
		tok := sql[i:j]
		i = j
		if kind == tokSpace {
			space = b.Len() > 0
			continue
		}
		if kind == tokLiteral {
			tok = "?"
		}
		sep := 0
		if space {
			sep = 1
		}
		// The separating space counts against the bound too.
		if b.Len()+sep+len(tok) > maxFingerprint {
			b.WriteString("...")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(tok)
	}
	return b.String()
}

// classify tells a read from a write by the statement's words: a read only
// when every statement in it starts with SELECT, VALUES, TABLE, SHOW or
// WITH and none has a word that modifies data (INSERT, UPDATE, DELETE,
// MERGE, or INTO as in SELECT INTO; UPDATE only when not a row lock).
// Anything else, including what it cannot parse, is a write: misreading a
// read as a write only costs a retry, the reverse can invite a client to
// apply a mutation twice. multi reports more than one statement.
func classify(sql string) (a Access, multi bool) {
	a = Read
	start, seen := true, false
	prev := ""
	for i := 0; i < len(sql); {
		kind, j := nextToken(sql, i)
		tok := sql[i:j]
		i = j
		switch kind {
		case tokSpace:
			continue
		case tokOther:
			if tok == ";" {
				start = true
				continue
			}
			if tok == "(" && start {
				continue
			}
		}
		if start {
			multi = multi || seen
			start, seen = false, true
			if kind != tokWord || !oneOf(tok, "SELECT", "VALUES", "TABLE", "SHOW", "WITH") {
				a = Write
			}
			prev = tok
			continue
		}
		if kind != tokWord {
			continue
		}
		// FOR UPDATE and FOR NO KEY UPDATE lock rows without changing
		// them; a lost session releases the locks.
		lock := oneOf(prev, "FOR", "KEY")
		if oneOf(tok, "INSERT", "DELETE", "MERGE", "INTO") || !lock && oneOf(tok, "UPDATE") {
			a = Write
		}
		prev = tok
	}
	if !seen {
		a = Write
	}
	return a, multi
}

func oneOf(word string, upper ...string) bool {
	for _, u := range upper {
		if strings.EqualFold(word, u) {
			return true
		}
	}
	return false
}
