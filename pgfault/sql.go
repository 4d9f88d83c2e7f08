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
	case isSpace(c):
		j := i + 1
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return tokSpace, j
	case hasPrefixAt(s, i, "--"):
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return tokSpace, len(s)
		}
		return tokSpace, i + j + 1
	case hasPrefixAt(s, i, "/*"):
		return tokSpace, blockCommentEnd(s, i)
	case c == '"':
		return tokQuoted, identEnd(s, i)
	case c == '$':
		return dollarToken(s, i)
	case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
		return tokLiteral, numberEnd(s, i)
	}
	if quote, backslash, ok := literalQuote(s, i); ok {
		return tokLiteral, quoteEnd(s, quote, backslash)
	}
	if isWordStart(c) {
		j := i + 1
		for j < len(s) && isWordPart(s[j]) {
			j++
		}
		return tokWord, j
	}
	return tokOther, i + 1
}

func hasPrefixAt(s string, i int, prefix string) bool {
	return strings.HasPrefix(s[i:], prefix)
}

// literalQuote finds the opening quote of a string literal starting at i,
// with or without one of PostgreSQL's prefixes: E'...' (backslash
// escapes), B'...' and X'...' (bit strings), N'...' (national) and U&'...'
// (Unicode escapes).
func literalQuote(s string, i int) (quote int, backslash, ok bool) {
	if s[i] == '\'' {
		return i, false, true
	}
	switch s[i] | 0x20 {
	case 'e':
		if hasPrefixAt(s, i+1, "'") {
			return i + 1, true, true
		}
	case 'b', 'x', 'n':
		if hasPrefixAt(s, i+1, "'") {
			return i + 1, false, true
		}
	case 'u':
		if hasPrefixAt(s, i+1, "&'") {
			return i + 2, false, true
		}
	}
	return 0, false, false
}

// dollarToken reads what starts with '$': a positional parameter ($1) or a
// dollar-quoted literal ($$...$$, $tag$...$tag$).
func dollarToken(s string, i int) (tokenKind, int) {
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
// WITH, none has a word that modifies data (INSERT, UPDATE, DELETE, MERGE,
// or INTO as in SELECT INTO; UPDATE only when not a row lock) and none
// calls a function other than PostgreSQL's own that read (count, lower,
// now, ...): SELECT charge_card(42) or SELECT nextval('s') may change data
// as much as an UPDATE. Anything else, including what it cannot parse, is a
// write: misreading a read as a write only costs a retry, the reverse can
// invite a client to apply a mutation twice.
//
// commits reports a statement that can commit part of its work before it
// fails, so that an error from the server does not prove nothing took
// effect: several statements in one string (one may be a COMMIT), CALL (a
// procedure may COMMIT as it goes), DO (a block may too), anything run
// CONCURRENTLY (it commits internal transactions and leaves what it built
// behind when it fails) and dblink (the remote side commits on its own).
func classify(sql string) (a Access, commits bool) {
	a = Read
	start, seen := true, false
	// last is the previous token that was neither space nor comment, and
	// last2 the one before it.
	last, lastKind, last2 := "", tokSpace, ""
	for i := 0; i < len(sql); {
		kind, j := nextToken(sql, i)
		tok := sql[i:j]
		i = j
		if kind == tokSpace {
			continue
		}
		before, beforeKind, before2 := last, lastKind, last2
		last, lastKind, last2 = tok, kind, before
		if kind == tokOther {
			if tok == ";" {
				start = true
				continue
			}
			if tok == "(" && start {
				continue
			}
			if tok == "(" && (beforeKind == tokQuoted || beforeKind == tokWord && !readsWithParens(before)) {
				a = Write
			}
		}
		if start {
			commits = commits || seen || kind == tokWord && oneOf(tok, "CALL", "DO")
			start, seen = false, true
			if kind != tokWord || !oneOf(tok, "SELECT", "VALUES", "TABLE", "SHOW", "WITH") {
				a = Write
			}
			continue
		}
		if kind != tokWord {
			continue
		}
		if oneOf(tok, "CONCURRENTLY", "dblink", "dblink_exec") {
			commits = true
		}
		// FOR UPDATE and FOR NO KEY UPDATE lock rows without changing
		// them; a lost session releases the locks. Only those exact words
		// right before it make UPDATE a lock: a column named key ending a
		// CTE ("WHERE key = $1) UPDATE ...") does not.
		lock := beforeKind == tokWord && (oneOf(before, "FOR") || oneOf(before, "KEY") && oneOf(before2, "NO"))
		if oneOf(tok, "INSERT", "DELETE", "MERGE", "INTO") || !lock && oneOf(tok, "UPDATE") {
			a = Write
		}
	}
	if !seen {
		a = Write
	}
	return a, commits
}

// readsWithParens reports whether a word before "(" in a read is one of
// the keywords that take a parenthesised list (IN (...), OVER (...)), a type
// with a modifier (numeric(10, 2)) or a built-in function that changes no
// data. Any other word is the call of a function that may.
func readsWithParens(word string) bool {
	var low [24]byte
	if len(word) > len(low) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return readingWords[string(low[:len(word)])]
}

// readingWords: the keywords, type names and built-in functions that can
// stand before "(" in a statement that only reads; advisory locks count
// as reads, as row locks do (a lost session releases them). Volatile
// functions that write (nextval, setval, pg_notify, lo_import, dblink_exec,
// pg_terminate_backend, set_config) are left out on purpose.
var readingWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		select values table with as from join on using where and or not in exists any all some
		over filter within group by partition order having lateral union intersect except
		distinct then else when case is between like ilike similar to array row cube rollup sets
		limit offset fetch window range rows groups returning
		cast coalesce nullif greatest least
		smallint integer int int2 int4 int8 bigint numeric decimal real float float4 float8
		varchar char character varying bit varbit time timestamp timestamptz interval
		count sum avg min max array_agg string_agg json_agg jsonb_agg json_object_agg jsonb_object_agg
		bool_and bool_or every bit_and bit_or stddev stddev_pop stddev_samp variance var_pop var_samp
		percentile_cont percentile_disc mode corr covar_pop covar_samp regr_slope regr_intercept
		row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
		lower upper length char_length character_length octet_length bit_length position strpos substring substr
		trim btrim ltrim rtrim replace translate concat concat_ws format left right lpad rpad repeat reverse
		split_part regexp_replace regexp_match regexp_matches regexp_split_to_array regexp_split_to_table
		starts_with initcap md5 sha224 sha256 sha384 sha512 encode decode to_hex ascii chr quote_ident quote_literal quote_nullable
		to_char to_date to_timestamp to_number now clock_timestamp statement_timestamp transaction_timestamp
		date_trunc date_part date_bin extract age make_date make_time make_timestamp make_timestamptz make_interval
		abs round floor ceil ceiling mod power pow sqrt cbrt exp ln log log10 sign trunc div pi random width_bucket
		array_length array_upper array_lower array_dims array_position array_positions array_remove array_replace
		array_append array_prepend array_cat array_to_string string_to_array cardinality unnest generate_series generate_subscripts
		json_build_object jsonb_build_object json_build_array jsonb_build_array to_json to_jsonb row_to_json array_to_json
		json_array_elements jsonb_array_elements json_array_elements_text jsonb_array_elements_text json_each jsonb_each
		json_each_text jsonb_each_text json_object_keys jsonb_object_keys json_extract_path jsonb_extract_path
		json_extract_path_text jsonb_extract_path_text jsonb_set jsonb_insert jsonb_strip_nulls jsonb_pretty
		jsonb_path_query jsonb_path_exists jsonb_typeof json_typeof json_array_length jsonb_array_length
		gen_random_uuid uuid_generate_v4 current_setting pg_typeof version has_table_privilege
		pg_sleep pg_sleep_for pg_sleep_until pg_backend_pid pg_size_pretty pg_relation_size pg_total_relation_size
		pg_table_size pg_indexes_size pg_database_size pg_column_size pg_is_in_recovery current_database
		current_schema current_schemas pg_postmaster_start_time pg_current_wal_lsn pg_last_wal_replay_lsn
		pg_last_xact_replay_timestamp inet_client_addr inet_server_addr pg_get_viewdef pg_get_indexdef
		pg_get_constraintdef pg_get_functiondef obj_description col_description to_regclass format_type
		pg_advisory_lock pg_try_advisory_lock pg_advisory_xact_lock pg_try_advisory_xact_lock
		st_distance st_dwithin st_makepoint st_setsrid st_asgeojson st_contains st_intersects
	`) {
		m[w] = true
	}
	return m
}()

func oneOf(word string, upper ...string) bool {
	for _, u := range upper {
		if strings.EqualFold(word, u) {
			return true
		}
	}
	return false
}
