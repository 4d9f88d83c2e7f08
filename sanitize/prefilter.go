package sanitize

import "strings"

// flags records which rule families could possibly match a text. The scan
// that computes them is a single pass with no allocation, so that clean text
// never reaches a regular expression or a hand-written scanner.
type flags uint32

const (
	fCtrl       flags = 1 << iota // C0 control byte or DEL
	fNonASCII                     // needs UTF-8 validation (and rune checks in the log tier)
	fStack                        // Go panic or stack trace marker
	fPEM                          // -----BEGIN
	fToken                        // AWS, GitHub, JWT or Slack token prefix
	fScheme                       // Bearer, Basic or Digest
	fAssign                       // a secret key or header name before ':' or '='
	fSchemeSep                    // "://"
	fAt                           // '@'
	fURL                          // fSchemeSep and fAt: possible userinfo
	fDSN                          // @tcp( and friends, or user:password@ without a scheme
	fSQL                          // a driver message that quotes row values
	fIP                           // digit.digit or a colon in hex context
	fHost                         // .internal, .local, ...
	fPath                         // a path under a well-known root or ~/, a drive or UNC path
	fUserOption                   // "-u " or "--user" (curl's user:password), or an option naming a secret ("--token x")
	fEscape                       // '\\', '%' or '&': an escape may hide a secret (unhideEscaped)
	fContext                      // a digit or inner capital after a credential word (the context rule)
	fCard                         // a chain of 13 to 19 digits (a card number)
	fBase64Pair                   // a base64 run after a colon (an encoded user:password)
	fSQLSecret                    // a quote after PASSWORD or IDENTIFIED BY (a statement's password)
)

const (
	secretFlags  = fPEM | fToken | fScheme | fAssign | fURL | fDSN | fUserOption | fContext | fCard | fBase64Pair | fSQLSecret
	locatorFlags = fIP | fHost | fPath
	publicFlags  = secretFlags | fStack | fSQL | locatorFlags
	// logFlags are what the log tier reads: it keeps stack traces, SQL and
	// locators, so its scan does not look for them.
	logFlags = secretFlags | fSchemeSep | fAt | fCtrl | fNonASCII | fEscape
)

// Byte classes for scan. Most bytes of prose are boring and cost one table
// lookup; only the first letters of trigger words, the punctuation that
// rules hinge on, control bytes and non-ASCII bytes get a closer look.
// Trigger words that start with a common lower-case letter ("eyJ", "near '")
// are found from a rarer byte inside them and checked backwards, so that
// most lower-case letters, and most runs of four bytes, are boring.
const (
	clsBoring = iota
	clsWord
	clsPunct
	clsCtrl
	clsHigh
	clsTrigger // a digit or capital that only the context and card rules read
)

// classFlag is the flag a control or a non-ASCII byte raises by itself.
var classFlag = [...]flags{clsCtrl: fCtrl, clsHigh: fNonASCII}

// punctFlags holds, for each punctuation byte, the flags scanPunct may
// raise there.
var punctFlags = [256]flags{
	'-': fPEM | fUserOption, '.': fIP | fStack | fSQL | fHost,
	':': fAssign | fSchemeSep | fIP | fPath | fSQL | fStack | fBase64Pair, '=': fAssign, '>': fAssign,
	',': fAssign | fStack, '@': fAt | fDSN, '/': fPath, '\\': fPath | fEscape,
	'[': fStack | fIP, '(': fStack | fSQL | fSQLSecret, '\'': fSQL | fAssign | fSQLSecret, '"': fSQL | fAssign | fSQLSecret, '%': fEscape, '&': fEscape,
}

// A scanner is one tier's prefilter: it looks only for the flags the
// tier's passes read, and its byte classes make every other byte boring,
// so the log tier does not pay for the public tier's SQL, trace and
// locator triggers.
type scanner struct {
	want  flags
	class [256]uint8
	// anchorPunct marks the punctuation that anchors a token trigger.
	anchorPunct [256]bool
	// wordFirst marks the first letters of the words scanWord looks for.
	wordFirst [256]bool
	// quiet are class with the control bytes, the non-ASCII bytes or both
	// made boring, indexed by quietIndex.
	quiet [4][256]uint8
	// marks is class with the triggers of the context and card checks
	// made boring, for a long scan, which reads them in a pass of their
	// own (see longScan).
	marks [256]uint8
}

// quietIndex picks the table of scanner.quiet for a scan that has found f.
func quietIndex(f flags) int { return int(f & (fCtrl | fNonASCII)) }

var (
	publicScanner = newScanner(publicFlags | fSchemeSep | fAt | fCtrl | fNonASCII | fEscape)
	logScanner    = newScanner(logFlags)
)

func newScanner(want flags) *scanner {
	sc := &scanner{want: want}
	t := &sc.class
	for c := 0; c < 0x20; c++ {
		t[c] = clsCtrl
	}
	t[0x7f] = clsCtrl
	for c := 0x80; c < 0x100; c++ {
		t[c] = clsHigh
	}
	for c := range 256 {
		if punctFlags[c]&want != 0 {
			t[c] = clsPunct
		}
	}
	if want&fScheme != 0 {
		for _, c := range []byte("bBdD") {
			t[c] = clsWord
			sc.wordFirst[c] = true
		}
	}
	for c, a := range triggersByAnchor {
		switch {
		case want&fToken == 0 || a == nil:
		case t[c] == clsBoring && (isLetter(byte(c)) || isDigit(byte(c))):
			t[c] = clsWord
		case t[c] == clsBoring:
			t[c] = clsPunct
			sc.anchorPunct[c] = true
		case t[c] == clsPunct:
			sc.anchorPunct[c] = true
		}
	}
	if want&fSQL != 0 {
		for c := range 256 {
			if sqlPrefixes[c] != nil {
				sc.wordFirst[c] = true
				if t[c] == clsBoring {
					t[c] = clsWord
				}
			}
		}
	}
	for c := range 256 {
		if want&(fContext|fCard) != 0 && contextTriggerByte[c] && t[c] == clsBoring {
			t[c] = clsTrigger
		}
	}
	sc.marks = marksOf(t)
	for q := range sc.quiet {
		sc.quiet[q] = *t
		for c, cls := range t {
			if cls == clsCtrl && q&int(fCtrl) != 0 || cls == clsHigh && q&int(fNonASCII) != 0 {
				sc.quiet[q][c] = clsBoring
			}
		}
	}
	return sc
}

// scan is the public tier's, which looks for every flag.
func scan(s string) flags { return publicScanner.scan(s) }

func (sc *scanner) scan(s string) flags { return withURL(sc.scanRange(s, 0, len(s), sc.want)) }

func withURL(f flags) flags {
	if f&fSchemeSep != 0 && f&fAt != 0 {
		f |= fURL
	}
	return f
}

// scanRange returns the flags in want of the triggers at s[lo:hi], read in
// the context of the whole of s.
func (sc *scanner) scanRange(s string, lo, hi int, want flags) flags {
	var skips valueSkips
	if hi-lo >= longScan {
		f, _ := sc.scanLong(s, lo, hi, want, 0, startFlags(s, lo, want), &skips)
		return f
	}
	f, _ := sc.scanUntil(s, lo, hi, want, 0, startFlags(s, lo, want), &skips)
	return f
}

// scanUntil is scanRange from the flags f found before s[lo] and the state
// skips of the context and card checks there, which it leaves as they are
// where it stops. It stops early, after the
// punctuation byte whose checks raise a flag of need (none when need is 0),
// and returns where it stopped (hi when it read to the end or found every
// flag), so that a caller can read there and resume (kvFirst).
//
// A scan of longScan bytes or more is scanLong's.
func (sc *scanner) scanUntil(s string, lo, hi int, want, need, f flags, skips *valueSkips) (flags, int) {
	byteClass := &sc.class
	// Most bytes are boring and cost a table lookup in a loop of their
	// own; the checks below run only for the others. The loops are
	// inlined, not called: a call per stop cost more than it saved.
	for i := lo; i < hi; i++ {
		// A run of boring bytes goes four bytes a step (plainRun), and
		// its last few one by one; a stop right after a stop, common in
		// dense text, costs the one lookup it did before.
		if byteClass[s[i]] == clsBoring {
			i = boringRun(byteClass, s, plainRun(s, i, hi), hi)
		}
		if i == hi {
			break
		}
		// Only the flags not found yet are looked for: on text that holds
		// many triggers (a hostile repetition, random bytes) the scan soon
		// has little left to check, and stops when it has nothing.
		w := want &^ f
		if w == 0 {
			return f, hi
		}
		switch byteClass[s[i]] {
		case clsWord, clsTrigger:
			c := s[i]
			// Lower-case trigger letters are common inside words, so they
			// count only where a word starts, and so do the token triggers
			// anchored on a lower-case letter (anchorOf).
			if byteClass[c] == clsWord && (c < 'a' || c > 'z' || wordStart(s, i)) {
				// Capitals begin sentences; of the words that start with
				// one, only a few are mixed-case triggers, the rest (SQL
				// keywords) are all capitals.
				if sc.wordFirst[c] && w&(fScheme|fSQL) != 0 && mayStartWord(s, i) {
					f |= scanWord(s, i, w)
				}
				if w&fToken != 0 && mayTrigger(s, i) && triggerAt(s, i) {
					f |= fToken
				}
			}
			// valueFlags asks no more than these two (each holds only at a
			// digit or a capital): a trigger neither answers costs no call.
			if w&(fContext|fCard) != 0 && (skips.due(s, i) || skips.cardDue(s, i)) {
				f |= valueFlags(s, i, w, skips)
			}
		case clsPunct:
			if w&fToken != 0 && sc.anchorPunct[s[i]] && mayTrigger(s, i) && punctTriggerAt(s, i) {
				f |= fToken
			}
			if punctFlags[s[i]]&w != 0 {
				if !proseDot(s, i) {
					g := scanPunct(s, i, w)
					if f |= g; g&need != 0 {
						return f, i + 1
					}
				} else {
					// A prose dot: scanPunct has nothing to say.
					i = quietDots(s, i, hi, w)
				}
			}
		case clsCtrl, clsHigh:
			// Once its flag is raised a control or non-ASCII byte has no
			// more to say: the run after it is read with such bytes as
			// boring, so random bytes cost a lookup each, not a stop.
			f |= classFlag[byteClass[s[i]]]
			quiet := &sc.quiet[quietIndex(f)]
			for i+1 < hi && quiet[s[i+1]] == clsBoring {
				i++
			}
		}
	}
	return f, hi
}

// quietDots returns, for the prose dot s[i], the last dot but one of the
// run of dots that holds it when s[i] is inside the run, with a dot on
// either side, and otherwise i: every dot inside a run is a prose dot,
// which scanPunct is not asked of, and mayTrigger answers all of them as it
// answers s[i], so when it turns s[i] away, or no token is looked for, the
// dots up to the one it returns, whose token check is made as s[i]'s
// would be, have nothing to say. Padding and ellipses cost one stop, not
// one a dot.
func quietDots(s string, i, hi int, w flags) int {
	if i == 0 || i+2 >= hi || s[i-1] != '.' || s[i+1] != '.' || w&fToken != 0 && mayTrigger(s, i) {
		return i
	}
	for i+2 < hi && s[i+2] == '.' {
		i++
	}
	return i
}

// proseDot reports whether s[i] is a dot that no letter or digit
// follows, which ends a sentence (or pads one): every check of scanPunct's
// for '.' wants one after it.
func proseDot(s string, i int) bool {
	return s[i] == '.' && (i+1 == len(s) || !isAlnum(s[i+1]))
}

func wordStart(s string, i int) bool { return i == 0 || !isAlnum(s[i-1]) }

// quoteFlags are the flags of a quote after a space: a database message
// naming a relation, column or constraint, a statement quoted after
// "near", or a secret quoted after its name in prose. Apart from
// scanPunct, which runs on every punctuation byte and would otherwise pay
// for these checks in its own frame.
func quoteFlags(s string, i int, want flags) flags {
	var f flags
	// databaseMessage finds these anywhere, not only where a word starts.
	if b := s[:i-1]; s[i] == '"' && s[i-1] == ' ' && (strings.HasSuffix(b, "relation") || strings.HasSuffix(b, "column") ||
		strings.HasSuffix(b, "constraint") || strings.HasSuffix(b, "near")) {
		f |= fSQL
	}
	// SQL Server: "Invalid object name 'dbo.orders'".
	if s[i] == '\'' && (wordBefore(s, i, "near ") || wordBefore(s, i, "object name ") || wordBefore(s, i, "column name ")) {
		f |= fSQL
	}
	if want&fAssign != 0 {
		if _, _, ok := quotedAfterKeyword(s, i); ok {
			f |= fAssign
		}
	}
	if want&fSQLSecret != 0 && statementPasswordAt(s, i) {
		f |= fSQLSecret
	}
	return f
}

// scanPunct runs the checks of the punctuation byte at s[i]: one function
// per byte, each reading only what its triggers need.
func scanPunct(s string, i int, want flags) flags {
	switch s[i] {
	case '-':
		return dashFlags(s, i, want)
	case '.':
		// The commonest punctuation of prose, so checked here and not in
		// a call of its own.
		var f flags
		if want&fIP != 0 && i > 0 && isDigit(s[i-1]) && i+1 < len(s) && isDigit(s[i+1]) {
			f |= fIP
		}
		if want&fStack != 0 && i+1 < len(s) && sourceExtensions[s[i+1]] != nil && sourceLocationAt(s, i) {
			f |= fStack
		}
		if want&fSQL != 0 && i > 0 && s[i-1] == 'r' && wordBefore(s, i, "driver") && strings.HasPrefix(s[i:], ".Value") {
			f |= fSQL
		}
		if want&fHost != 0 && internalSuffixAt(s, i+1) > 0 {
			f |= fHost
		}
		return f
	case ':':
		return colonFlags(s, i, want)
	case '"', '\'':
		return quoteAfterSpaceFlags(s, i, want) | leadFlags(s, i, want)
	case ',':
		return commaFlags(s, i, want)
	case '=', '>':
		return assignFlags(s, i)
	case '@':
		return atFlags(s, i)
	case '/':
		return slashFlags(s, i)
	case '\\':
		return backslashFlags(s, i, want)
	case '[':
		return bracketFlags(s, i, want)
	case '(':
		return parenFlags(s, i, want)
	case '%', '&':
		return fEscape
	}
	return 0
}

func dashFlags(s string, i int, want flags) flags {
	var f flags
	// Most dashes join words and numbers ("eu-west-1", a UUID): the byte
	// after one turns the armour's test away before a comparison.
	if want&fPEM != 0 && i+1 < len(s) && s[i+1] == '-' && strings.HasPrefix(s[i:], "-----BEGIN") {
		f |= fPEM
	}
	// Each option starts a word after a space: a dash inside a word (a
	// token's, a hyphenated name's) asks none of them.
	if want&fUserOption != 0 && (i == 0 || isSpace(s[i-1])) && (userOptionAt(s, i) > 0 || secretOptionAt(s, i) > 0 || passwordFlagAt(s, i) || keystorePassOptionAt(s, i) > 0 || stdinSecretOptionAt(s, i)) {
		f |= fUserOption
	}
	return f
}

func colonFlags(s string, i int, want flags) flags {
	var f flags
	if want&fAssign != 0 && mayKeyBefore(s, i) {
		if _, _, ok := keyBefore(s, i); ok {
			f |= fAssign
		}
	}
	if want&fBase64Pair != 0 && base64PairAhead(s, i) {
		f |= fBase64Pair
	}
	if strings.HasPrefix(s[i:], "://") {
		f |= fSchemeSep
		if cutUserColon(s, i+3) > 0 {
			f |= fURL
		}
	}
	// "::" alone is an address too (ipAt takes it), whatever is around.
	if want&fIP != 0 && i+1 < len(s) && (s[i+1] == ':' || i > 0 && (isHex(s[i-1]) || s[i-1] == ':') && isHex(s[i+1])) {
		f |= fIP
	}
	if want&fPath != 0 && i > 0 && drivePathAt(s, i-1) {
		f |= fPath
	}
	if want&(fSQL|fStack) != 0 && i > 0 {
		f |= colonAfterWord(s, i)
	}
	return f | leadFlags(s, i, want)
}

func quoteAfterSpaceFlags(s string, i int, want flags) flags {
	if i > 1 && (s[i-1] == ' ' || s[i-1] == '\\' && s[i-2] == ' ') {
		return quoteFlags(s, i, want)
	}
	return 0
}

func commaFlags(s string, i int, want flags) flags {
	var f flags
	if want&fAssign != 0 {
		if _, _, ok := keyBefore(s, i); ok {
			f |= fAssign
		}
	}
	if want&fStack != 0 && strings.HasPrefix(s[i:], ", in ") && pythonLineBefore(s, i) {
		f |= fStack
	}
	return f
}

func assignFlags(s string, i int) flags {
	if _, _, ok := keyBefore(s, i); ok {
		return fAssign
	}
	return 0
}

func atFlags(s string, i int) flags {
	if _, pe := bareUserinfoPassword(s, i); dsnProtocol(s[i+1:]) > 0 || pe > 0 {
		return fAt | fDSN
	}
	return fAt
}

func slashFlags(s string, i int) flags {
	if unixPathAt(s, i) || homePathAt(s, i) >= 0 {
		return fPath
	}
	return 0
}

func backslashFlags(s string, i int, want flags) flags {
	if want&fPath != 0 && uncPathAt(s, i) {
		return fEscape | fPath
	}
	return fEscape
}

func bracketFlags(s string, i int, want flags) flags {
	var f flags
	if want&fStack != 0 && (strings.HasPrefix(s[i:], "[signal ") || goroutineHeaderBefore(s, i)) {
		f |= fStack
	}
	if want&fIP != 0 && i+1 < len(s) && (isHex(s[i+1]) || s[i+1] == ':') {
		f |= fIP
	}
	return f
}

func parenFlags(s string, i int, want flags) flags {
	var f flags
	if wordBefore(s, i, "panic") || wordBefore(s, i, "Traceback ") ||
		strings.HasPrefix(s[i:], "(Native Method)") || strings.HasPrefix(s[i:], "(Unknown Source)") {
		f |= fStack
	}
	if want&fSQL != 0 && mysqlErrorAt(s, i) {
		f |= fSQL
	}
	if want&fSQLSecret != 0 && i > 0 && (s[i-1]|0x20 == 's' || s[i-1] == ' ') && insertRowAt(s, i) {
		f |= fSQLSecret
	}
	return f | leadFlags(s, i, want)
}

// colonAfterWord checks the words a driver or a stack trace puts before a
// colon ("pq:", "Caused by:"), by the letter before the colon.
func colonAfterWord(s string, i int) flags {
	switch s[i-1] {
	case 'q':
		if wordBefore(s, i, "pq") {
			return fSQL
		}
	case 'l':
		if wordBefore(s, i, "sql") || wordBefore(s, i, "mssql") {
			return fSQL
		}
	case 'y':
		if wordBefore(s, i, "Caused by") {
			return fStack
		}
	case 'e':
		if wordBefore(s, i, "stack backtrace") || wordBefore(s, i, "node") && strings.HasPrefix(s[i:], ":internal/") {
			return fStack
		}
		// SQLite names what it could not find: "no such table: orders".
		if wordBefore(s, i, "no such table") || wordBefore(s, i, "ambiguous column name") {
			return fSQL
		}
	case 'n':
		if wordBefore(s, i, "no such column") {
			return fSQL
		}
		if qualifiedThrowableBefore(s, i, "Exception") {
			return fStack
		}
	case 'r':
		if qualifiedThrowableBefore(s, i, "Error") {
			return fStack
		}
	case 'V', 'S', 'L', 'E', 'T':
		// The signal a Go program, or any other, crashed on:
		// "SIGSEGV: segmentation violation", then its registers.
		for _, sig := range [...]string{"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT", "SIGTRAP"} {
			if wordBefore(s, i, sig) {
				return fStack
			}
		}
	}
	return 0
}

// wordBefore reports whether w ends just before s[i] and starts a word.
func wordBefore(s string, i int, w string) bool {
	j := i - len(w)
	return j >= 0 && s[j:i] == w && wordStart(s, j)
}

// scanWord checks the trigger words that can start at s[i]; it is called for
// every clsWord letter, so each case compares only a handful of bytes.
func scanWord(s string, i int, want flags) flags {
	t := s[i:]
	if want&fScheme != 0 {
		switch s[i] | 0x20 {
		case 'b':
			if hasPrefixFold(t, "bearer") || hasPrefixFold(t, "basic") {
				return fScheme
			}
		case 'd':
			if hasPrefixFold(t, "digest") {
				return fScheme
			}
		}
	}
	// Database statements and driver messages: upper-case words (and
	// "duplicate key", which starts a word), confirmed by databaseMessage.
	if want&fSQL != 0 && sqlPrefixes[s[i]] != nil {
		for _, p := range sqlPrefixes[s[i]] {
			if strings.HasPrefix(t, p) {
				return fSQL
			}
		}
	}
	return 0
}

// scanWordBytes holds, for each first byte of a word scanWord looks for,
// the second and the third bytes it may have (both cases for the words it
// takes in any case): most words that start with a trigger letter
// ("body", "between", "In") are turned away by two lookups, before
// scanWord compares any prefix.
var scanWordBytes = func() (t [256][2][4]uint64) {
	add := func(w string, fold bool) {
		for k := 1; k <= 2; k++ {
			set := func(a, c byte) { t[a][k-1][c>>6] |= 1 << (c & 63) }
			set(w[0], w[k])
			if fold {
				upper, c := w[0]-'a'+'A', w[k]-'a'+'A'
				set(upper, w[k])
				set(w[0], c)
				set(upper, c)
			}
		}
	}
	for _, w := range []string{"bearer", "basic", "digest"} {
		add(w, true)
	}
	for _, ps := range sqlPrefixes {
		for _, p := range ps {
			add(p, false)
		}
	}
	return t
}()

// mayStartWord reports whether a word scanWord looks for may start at
// s[i], by its first three bytes (every such word has more).
func mayStartWord(s string, i int) bool {
	if i+2 >= len(s) {
		return false
	}
	b := &scanWordBytes[s[i]]
	return b[0][s[i+1]>>6]&(1<<(s[i+1]&63)) != 0 && b[1][s[i+2]>>6]&(1<<(s[i+2]&63)) != 0
}

// sqlPrefixes are the words that open a database statement or a driver
// message, by first byte.
var sqlPrefixes = func() (t [256][]string) {
	for _, p := range []string{"SELECT", "SQLSTATE", "INSERT", "UPDATE", "UNIQUE constraint", "DELETE",
		"DROP", "Duplicate entry", "duplicate key", "CREATE", "CONSTRAINT", "CHECK constraint",
		"ALTER", "TRUNCATE", "NOT NULL constraint", "FOREIGN KEY", "Failing row",
		"Key (", "ORA-", "SQL syntax", "UPSERT", "COPY", "CALL", "SET",
		// GRANT, REVOKE, MERGE, REPLACE, WITH and EXPLAIN are found by
		// the keyword that must follow them, whose capital already
		// stops the scan: a G, R, M, W or E would stop it in most
		// sentences ("Review", "We").
		"INTO", "FROM", "ON ", "TO ", "AS ", "ON\t", "TO\t", "AS\t", "ON\n", "TO\n", "AS\n"} {
		t[p[0]] = append(t[p[0]], p)
	}
	return t
}()

// goroutineHeaderBefore reports whether the '[' at s[i] ends the start of a
// Go traceback header: "goroutine", a space, digits and a space.
func goroutineHeaderBefore(s string, i int) bool {
	if i == 0 || s[i-1] != ' ' {
		return false
	}
	d := i - 1
	for d > 0 && isDigit(s[d-1]) {
		d--
	}
	return d < i-1 && wordBefore(s, d, "goroutine ")
}

func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isWordByte(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
