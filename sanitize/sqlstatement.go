package sanitize

// Database statements reach errors in two shapes. A driver or an ORM
// writes one whole, often in lower case, where a message quotes it: at the
// start of the text, after a wrapper's colon, inside quotes (JSON, %q) or
// parentheses. Hand-written code shouts its keywords anywhere. So a
// statement in any case counts only where it leads (hasLeadVerb), and
// must show the grammar that prose lacks; a statement in capitals counts
// anywhere, and its verb with the keyword that follows is enough.

// sqlVerbs open a statement: the words a lead is looked for, by first
// letter.
var sqlVerbs = func() (t [256][]string) {
	for _, v := range []string{"select", "insert", "update", "delete", "merge", "upsert", "replace", "with",
		"create", "alter", "drop", "grant", "revoke", "truncate", "copy", "explain", "call", "set"} {
		t[v[0]] = append(t[v[0]], v)
	}
	return t
}()

// leadPairs holds, as a bit set indexed by two bytes (the first the low
// byte), the starts of a lead: the first two letters of a verb in either
// case, and a space or an escape before one. Most words at a boundary are
// turned away by this one lookup.
var leadPairs = func() (t [1 << 16 / 64]uint64) {
	set := func(a, b byte) {
		p := uint16(a) | uint16(b)<<8
		t[p>>6] |= 1 << (p & 63)
	}
	for _, vs := range sqlVerbs {
		for _, v := range vs {
			for _, a := range []byte{v[0], v[0] - 'a' + 'A'} {
				set(a, v[1])
				set(a, v[1]-'a'+'A')
			}
		}
	}
	for _, a := range []byte(" \t\n\r\\") {
		for b := range 256 {
			set(a, byte(b))
		}
	}
	return t
}()

// mayLead reports whether a lead may start at s[j], after a space, by its
// first two bytes: small enough to be inlined, as it is asked at every
// colon and quote the prefilter reads.
func mayLead(s string, j int) bool {
	if j < len(s) && s[j] == ' ' {
		j++
	}
	if j+1 >= len(s) {
		return false
	}
	p := uint16(s[j]) | uint16(s[j+1])<<8
	return leadPairs[p>>6]&(1<<(p&63)) != 0
}

// verbPrefixes holds the first four bytes of every verb, with 0x20 set
// in each byte (a letter in either case then reads the same), in a table
// indexed by a hash of them: a word at a lead that starts as a verb does
// ("Upstream", "Could") is turned away by one probe or two. "set" is three
// letters, and its fourth byte is the space after it.
var verbPrefixes = func() (t [256]uint32) {
	add := func(w uint32) {
		h := verbHash(w)
		for t[h] != 0 {
			h = (h + 1) % uint32(len(t))
		}
		t[h] = w
	}
	for _, vs := range sqlVerbs {
		for _, v := range vs {
			if len(v) > 3 {
				add(prefix4(v, 0))
				continue
			}
			for _, sp := range []byte(" \t\n\r\\") {
				add(prefix4(v+string(sp), 0))
			}
		}
	}
	return t
}()

// prefix4 reads s[j:j+4] as one little-endian word, which the compiler
// makes one load, with 0x20 set in each byte.
func prefix4(s string, j int) uint32 {
	b := s[j : j+4]
	return (uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24) | 0x20202020
}

func verbHash(w uint32) uint32 { return w * 0x9e3779b1 >> 24 }

// hasVerbPrefix reports whether w is in verbPrefixes.
func hasVerbPrefix(w uint32) bool {
	for h := verbHash(w); verbPrefixes[h] != 0; h = (h + 1) % uint32(len(verbPrefixes)) {
		if verbPrefixes[h] == w {
			return true
		}
	}
	return false
}

// maxLeadSpace bounds the spaces read between a lead's boundary and its
// verb, so that the prefilter's check stays within scanAhead.
const maxLeadSpace = 4

// sqlSpaceAt returns the length of the space at s[i]: a blank, a line
// break, or the escape of one (`\n`, as %q and JSON write it), else 0.
func sqlSpaceAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch s[i] {
	case ' ', '\t', '\n', '\r':
		return 1
	case '\\':
		if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 't' || s[i+1] == 'r') {
			return 2
		}
	}
	return 0
}

// leadVerb returns where the verb that starts at s[j], after at most
// maxLeadSpace spaces, ends, or -1: the word must be a verb in any case and
// a space must follow it.
func leadVerb(s string, j int) (int, int) {
	for n := 0; n < maxLeadSpace && j < len(s) && (s[j] <= ' ' || s[j] == '\\'); n++ {
		k := sqlSpaceAt(s, j)
		if k == 0 {
			break
		}
		j += k
	}
	if j+4 > len(s) || !hasVerbPrefix(prefix4(s, j)) {
		return j, -1
	}
	for _, v := range sqlVerbs[s[j]|0x20] {
		if e := j + len(v); hasPrefixFold(s[j:], v) && sqlSpaceAt(s, e) > 0 {
			return j, e
		}
	}
	return j, -1
}

// hasLeadVerb reports whether a statement verb leads at s[j]: j is the
// start of the text or follows a boundary (isLeadBoundary).
// Callers ask mayLead first, which the compiler inlines.
func hasLeadVerb(s string, j int) bool {
	// A word right at j or after one space, the common case, is asked of
	// verbPrefixes here, without leadVerb's frame.
	k := j
	if k < len(s) && s[k] == ' ' {
		k++
	}
	if k+4 <= len(s) && s[k] > ' ' && s[k] != '\\' && !hasVerbPrefix(prefix4(s, k)) {
		return false
	}
	_, e := leadVerb(s, j)
	return e > 0
}

// isLeadBoundary reports whether a statement quoted in a message may start
// after c: a wrapper's colon, a quote, an opening parenthesis.
func isLeadBoundary(c byte) bool { return c == ':' || c == '"' || c == '\'' || c == '(' }

// startFlags flags a statement that leads the text, when s[lo:] is its
// start: no byte before the verb asks for the check.
func startFlags(s string, lo int, want flags) flags {
	if lo == 0 {
		return leadFlags(s, -1, want)
	}
	return 0
}

// leadFlags flags a statement quoted after the boundary at s[i].
func leadFlags(s string, i int, want flags) flags {
	if want&fSQL != 0 && mayLead(s, i+1) && hasLeadVerb(s, i+1) {
		return fSQL
	}
	return 0
}

// sqlStatement reports whether s holds a database statement: one in any
// case where it leads, or one in capitals anywhere.
func sqlStatement(s string) bool {
	spend(len(s))
	if statementAtLead(s, 0) {
		return true
	}
	var upper upperPairs
	for i := 0; i < len(s); i++ {
		for i < len(s) && !sqlStops[s[i]] {
			i++
		}
		if i == len(s) {
			return false
		}
		if !isLeadBoundary(s[i]) {
			if wordStart(s, i) && (upper.see(s, i) || mayLead(s, i) && upperStatement(s, i)) {
				return true
			}
		} else if mayLead(s, i+1) && statementAtLead(s, i+1) {
			return true
		}
	}
	return false
}

// sqlStops are the bytes sqlStatement stops at: the boundaries of a lead
// and the capitals.
var sqlStops = func() (t [256]bool) {
	for c := byte('A'); c <= 'Z'; c++ {
		t[c] = true
	}
	for _, c := range []byte(`:"'(`) {
		t[c] = true
	}
	return t
}()

// statementAtLead reports whether a statement in any case starts at s[j].
func statementAtLead(s string, j int) bool {
	v, e := leadVerb(s, j)
	if e < 0 {
		return false
	}
	c := sqlCursor{s: s, i: e, fold: true}
	c.space()
	return c.statement(s[v:e])
}

// upperStatement reports whether a statement in capitals starts at s[i].
func upperStatement(s string, i int) bool {
	e := i
	for e < len(s) && 'A' <= s[e] && s[e] <= 'Z' {
		e++
	}
	if e-i < 3 || e-i > 8 || sqlSpaceAt(s, e) == 0 || len(sqlVerbs[s[i]|0x20]) == 0 {
		return false
	}
	c := sqlCursor{s: s, i: e}
	c.space()
	return c.statement(s[i:e])
}

// upperPairs finds the statements whose keywords may stand far apart:
// "SELECT ... FROM" and "UPDATE ... SET", in capitals, the second after
// the first. One pass, however many there are.
type upperPairs struct{ selectSeen, updateSeen bool }

func (u *upperPairs) see(s string, i int) bool {
	switch s[i] {
	case 'S':
		if upperWordAt(s, i, "SELECT") {
			u.selectSeen = true
		}
		return u.updateSeen && upperWordAt(s, i, "SET") && i > 0 && sqlSpaceAt(s, i-1) > 0
	case 'U':
		u.updateSeen = u.updateSeen || upperWordAt(s, i, "UPDATE")
	case 'F':
		return u.selectSeen && upperWordAt(s, i, "FROM") && i > 0 && sqlSpaceAt(s, i-1) > 0
	}
	return false
}

// upperWordAt reports whether the word w, in capitals, stands at s[i]
// with a space after it.
func upperWordAt(s string, i int, w string) bool {
	return len(s)-i > len(w) && s[i:i+len(w)] == w && sqlSpaceAt(s, i+len(w)) > 0
}

// A sqlCursor reads a statement a token at a time. fold says keywords
// may be in any case; else they must be in capitals.
type sqlCursor struct {
	s    string
	i    int
	fold bool
}

func (c *sqlCursor) space() {
	for {
		n := sqlSpaceAt(c.s, c.i)
		if n == 0 {
			return
		}
		c.i += n
	}
}

func (c *sqlCursor) end() bool { return c.i >= len(c.s) }

// maxName bounds an identifier: a longer run of word bytes is no name a
// statement would use, and each attempt reads no more of it.
const maxName = 64

// word returns the identifier at the cursor, without moving it.
func (c *sqlCursor) word() string {
	e := c.i
	for e < len(c.s) && e-c.i <= maxName && (isWordByte(c.s[e]) || c.s[e] == '$') {
		e++
	}
	spend(e - c.i)
	if e-c.i > maxName {
		return ""
	}
	return c.s[c.i:e]
}

// isKeyword reports whether w is the keyword kw (in lower case), as the
// cursor's case allows.
func (c *sqlCursor) isKeyword(w, kw string) bool {
	if len(w) != len(kw) {
		return false
	}
	for k := 0; k < len(w); k++ {
		b := w[k]
		switch {
		case 'A' <= b && b <= 'Z':
			b += 'a' - 'A'
		case 'a' <= b && b <= 'z' && !c.fold:
			return false
		}
		if b != kw[k] {
			return false
		}
	}
	return true
}

// spacedKeyword is keyword for one keyword, which in capitals a blank or
// a line break must follow: the prefilter finds a statement in capitals by
// such a keyword ("ON ", "AS\t").
func (c *sqlCursor) spacedKeyword(kw string) bool {
	if e := c.i + len(kw); !c.fold && (e >= len(c.s) || c.s[e] != ' ' && c.s[e] != '\t' && c.s[e] != '\n') {
		return false
	}
	return c.keyword(kw)
}

// keyword moves past the next word if it is one of kws.
func (c *sqlCursor) keyword(kws ...string) bool {
	w := c.word()
	for _, kw := range kws {
		if c.isKeyword(w, kw) {
			c.i += len(w)
			c.space()
			return true
		}
	}
	return false
}

// nextIs reports whether the next word is one of kws, without moving.
func (c *sqlCursor) nextIs(kws ...string) bool {
	w := c.word()
	for _, kw := range kws {
		if c.isKeyword(w, kw) {
			return true
		}
	}
	return false
}

// punct moves past the byte b if it is next.
func (c *sqlCursor) punct(b byte) bool {
	if c.i < len(c.s) && c.s[c.i] == b {
		c.i++
		c.space()
		return true
	}
	return false
}

func (c *sqlCursor) peek() byte {
	if c.i < len(c.s) {
		return c.s[c.i]
	}
	return 0
}

// maxQuoted bounds a quoted name or literal: a statement's are short, and
// a quote that opens a long run of prose is no statement's.
const maxQuoted = 128

// quoted moves past a quoted name or literal ('...', "...", `...`,
// [...]) and reports whether there was one.
func (c *sqlCursor) quoted() bool {
	q := c.peek()
	closer := q
	switch q {
	case '\'', '"', '`':
	case '[':
		closer = ']'
	default:
		return false
	}
	for k := c.i + 1; k < len(c.s) && k-c.i <= maxQuoted; k++ {
		if c.s[k] == closer {
			spend(k - c.i)
			c.i = k + 1
			c.space()
			return true
		}
	}
	spend(min(maxQuoted, len(c.s)-c.i))
	return false
}

// name moves past a name, qualified or not, quoted or not, and reports
// whether there was one and whether it looks like code: quoted, dotted,
// with an underscore or a digit, or a MySQL account ('app'@'%'). A
// keyword or a word of prose ("the", "your") is no name.
func (c *sqlCursor) name() (ok, strong bool) { return c.nameNot(proseWords) }

// nameNot is name with the words of prose it refuses.
func (c *sqlCursor) nameNot(prose map[string]bool) (ok, strong bool) {
	for part := 0; ; part++ {
		start := c.i
		if c.quoted() {
			strong = true
		} else {
			w := c.word()
			if w == "" || part == 0 && isProseOrKeyword(w, prose) {
				c.i = start
				return part > 0, strong
			}
			for k := 0; k < len(w); k++ {
				if w[k] == '_' || isDigit(w[k]) {
					strong = true
				}
			}
			c.i += len(w)
		}
		if c.peek() != '.' && c.peek() != '@' {
			c.space()
			return true, strong
		}
		strong = true
		c.i++
	}
}

func isProseOrKeyword(w string, prose map[string]bool) bool {
	lw := lowerWord(w)
	return prose[lw] || sqlKeywords[lw]
}

// lowerWord returns w in lower case for a lookup, or "" when it is longer
// than any word looked up; it does not allocate.
func lowerWord(w string) string {
	var buf [12]byte
	if len(w) > len(buf) {
		return ""
	}
	for k := 0; k < len(w); k++ {
		b := w[k]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		buf[k] = b
	}
	return string(buf[:len(w)])
}

// proseWords are the words that follow a verb in prose ("select a plan",
// "update your settings", "truncate the log"), where a statement names a
// table.
var proseWords = setOf("an", "the", "this", "that", "these", "those", "your", "my", "our", "their", "his",
	"her", "its", "it", "them", "us", "me", "you", "any", "some", "each", "every", "no", "one", "list",
	"below", "above", "here", "there", "which", "what", "new", "old", "more", "other", "again", "now",
	"is", "are", "was", "to", "in", "of", "for", "and", "or", "not", "please", "then")

// articles are the words of proseWords that no column is named: a
// select's list may name "now()" or "first", not "the".
var articles = setOf("an", "the", "this", "that", "these", "those", "your", "my", "our", "their", "some",
	"any", "each", "every", "one", "no")

// sqlKeywords are the keywords a name cannot be.
var sqlKeywords = setOf("select", "from", "where", "set", "values", "into", "on", "to", "as", "join", "using",
	"and", "or", "by", "order", "group", "limit", "table", "insert", "update", "delete", "create", "drop",
	"alter", "grant", "revoke", "with", "union", "having")

func setOf(words ...string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}
