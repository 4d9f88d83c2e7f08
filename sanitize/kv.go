package sanitize

import "strings"

// Key-value secrets are found from their separator backwards: ':' and '='
// are rare in prose, so clean text costs one byte comparison per byte, and
// a key matches by its ending, so "db_password" and "X-Api-Key" need no
// list of their own.

var (
	secretKeys = []string{"password", "passwd", "passphrase", "pass", "pwd", "secret", "token",
		"apikey", "credential", "credentials", "session_id", "session-id", "sessionid", "signature", "sig",
		"secret_key_base", "session", "sessid"}
	// A key named "<qualifier>_key" ("DD_APP_KEY", "Ocp-Apim-Subscription-Key")
	// holds a credential; "key" alone names too many other things.
	keyQualifiers = []string{"api", "access", "secret", "private", "signing", "encryption", "master", "client", "account",
		"subscription", "license", "application", "app", "functions", "auth", "session", "shared", "storage",
		"deploy", "write", "consumer", "webhook",
		// Vendors whose API keys services keep in "<VENDOR>_KEY" variables.
		"stripe", "openai", "anthropic", "sendgrid", "mailgun", "mailchimp", "twilio", "github", "gitlab",
		"slack", "google", "gcp", "firebase", "algolia", "pusher", "mapbox", "segment", "mixpanel", "heroku",
		"vercel", "netlify", "cloudflare", "digitalocean", "aws", "azure", "paypal", "braintree", "shopify",
		"hubspot", "intercom", "zendesk", "airtable", "notion", "discord", "telegram", "sentry", "postmark",
		"resend", "mistral", "cohere", "groq", "replicate", "huggingface", "pinecone", "supabase", "clerk"}
	// Header keys take the rest of the line as their value.
	lineKeys = []string{"authorization", "cookie"}
)

type keyword struct {
	word string
	line bool
}

// keysByLast groups the key names by their last byte, in either case, so
// that a separator after an ordinary word ("order:") costs one lookup
// instead of a comparison with every name. No name is a suffix of another,
// so the grouping cannot change which one matches.
var keysByLast = func() (t [256][]keyword) {
	add := func(w string, line bool) {
		c := w[len(w)-1]
		t[c] = append(t[c], keyword{w, line})
		t[c-'a'+'A'] = append(t[c-'a'+'A'], keyword{w, line})
	}
	for _, w := range lineKeys {
		add(w, true)
	}
	for _, w := range secretKeys {
		add(w, false)
	}
	return t
}()

// keyTails holds the last two bytes of every key name, of the qualified
// "..._key" names and of the type names withoutTypeName skips, hashed by
// tailIndex: a filter that lets through every key and few other words.
var keyTails = func() (t [1 << 10]bool) {
	add := func(w string) { t[tailIndex(w[len(w)-2], w[len(w)-1])] = true }
	for _, w := range lineKeys {
		add(w)
	}
	for _, w := range secretKeys {
		add(w)
	}
	for _, w := range []string{"key", "str", "string", "value"} {
		add(w)
	}
	return t
}()

// tailIndex hashes two bytes, folding case: letters keep their place in
// the alphabet and every byte its low five bits.
func tailIndex(a, b byte) int { return int(a&31)<<5 | int(b&31) }

// mayEndKey holds the bytes that can stand just before the separator of a
// secret key: most separators follow an ordinary word ("order: ...") and
// are rejected by one lookup.
var mayEndKey = func() (t [256]bool) {
	for c := range 256 {
		t[c] = len(keysByLast[c]) > 0
	}
	for _, c := range []byte(" \t\"'\\yYgGrR]") {
		t[c] = true
	}
	return t
}()

// keyBefore reports whether the separator at s[q] follows a secret key,
// allowing the quotes and spaces of JSON and YAML in between. Separators
// are ':' and '=', with the operators around '=' that configuration and
// code use ("=>", ":=", "::=", "?=", ".=", "+="), ',' after a quoted key
// (setProperty("K", "v")) and '>' closing an XML element named after the
// key. It returns where the key's keyword starts and whether the value runs
// to the end of the line.
func keyBefore(s string, q int) (start int, line, ok bool) {
	if q == 0 {
		return 0, false, false
	}
	j := q
	switch s[q] {
	case '=':
		for n := 0; n < 3 && j > 0 && isAssignOp(s[j-1]); n++ {
			j--
		}
	case ',':
		if s[q-1] != '"' && s[q-1] != '\'' {
			return 0, false, false
		}
	case '"', '\'':
		return quotedAfterKeyword(s, q)
	case '>':
		if s[q-1] == '"' || s[q-1] == '\'' {
			start, ok = namedElementBefore(s, q)
			return start, false, ok
		}
		if !isWordByte(s[q-1]) {
			return 0, false, false
		}
	}
	if j == 0 || !mayEndKey[s[j-1]] {
		return 0, false, false
	}
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	// An array element named by its key: $config['secret'] = ...
	if j > 1 && s[j-1] == ']' && (s[j-2] == '\'' || s[j-2] == '"') {
		j--
	}
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		j--
	}
	if j > 0 && s[j-1] == '\\' {
		j--
	}
	// A plural of a secret's name ("api_keys", "tokens") names secrets
	// when its value is a list or an object of them; before a number or a
	// word it counts or describes them ("tokens: 4096").
	plural := j >= 3 && s[j-1]|0x20 == 's' && (s[q] == ':' || s[q] == '=') && structureAfter(s, q)
	// Most separators follow an ordinary word ("order:"): its last two
	// bytes end no key name and no type name, and one lookup rejects it.
	if j < 2 || !keyTails[tailIndex(s[j-2], s[j-1])] && !plural {
		return 0, false, false
	}
	j = withoutTypeName(s, j)
	if j == 0 {
		return 0, false, false
	}
	k := s[:j]
	start, line, ok = secretKeyEnding(k)
	if !ok && plural && k[j-1]|0x20 == 's' {
		start, line, ok = secretKeyEnding(k[:j-1])
	}
	if !ok && k[j-1]|0x20 == 'e' && s[q] != ',' && s[q] != '>' && hasSuffixFold(k, "value") {
		start, ok = j-len("value"), namedValueBefore(s, j-len("value"), q)
	}
	if !ok && s[q] == '>' {
		if v, found := keyElementValue(s, q); found {
			// The closing check below reads the element as a tag of its own.
			return v, false, true
		}
	}
	// "key" alone names too many things, but not as a URL's query
	// parameter: "?key=..." is how many APIs take their key.
	if !ok && s[q] == '=' && j == q && j >= 4 && hasSuffixFold(k, "key") && (k[j-4] == '?' || k[j-4] == '&') {
		start, ok = j-3, true
	}
	if !ok || inPath(s, start, q) && !assignsInPath(s, q) || s[q] == '>' && !xmlTagBefore(s, start, q) {
		return 0, false, false
	}
	return start, line, true
}

// secretKeyEnding reports whether k ends with the name of a secret key
// and where that name starts.
func secretKeyEnding(k string) (start int, line, ok bool) {
	if k == "" {
		return 0, false, false
	}
	for _, w := range keysByLast[k[len(k)-1]] {
		if hasSuffixFold(k, w.word) {
			return len(k) - len(w.word), w.line, true
		}
	}
	if k[len(k)-1]|0x20 == 'y' && hasSuffixFold(k, "key") {
		r := k[:len(k)-3]
		if strings.HasSuffix(r, "_") || strings.HasSuffix(r, "-") {
			r = r[:len(r)-1]
		}
		for _, w := range keyQualifiers {
			if hasSuffixFold(r, w) {
				return len(r) - len(w), false, true
			}
		}
	}
	return 0, false, false
}

// namedValueBefore reports whether the member "value" starting at s[v],
// whose separator is s[q], holds the value of a secret named just before
// it: a name-value pair, as Kubernetes lists environment variables in YAML
// ("- name: DB_PASSWORD" then "value: ..." on the next line), .NET and
// Spring configure in XML (<add key="ApiToken" value="..."/>, <property
// name="password" value="..."/>) and logfmt writes (name=DB_PASSWORD
// value=...). Between the name and "value" stand at most a closing quote,
// spaces and one line break. The name is not read back to its start: like
// every key rule it is known by its ending, and the bytes read stay within
// the prefilter's reach of the separator.
func namedValueBefore(s string, v, q int) bool {
	if v > 0 && isKeyNameByte(s[v-1]) {
		return false // "default_value", "values"
	}
	lo := max(q-scanBehind, 0)
	p := v
	if p > lo && (s[p-1] == '"' || s[p-1] == '\'') {
		p--
	}
	if p > lo && s[p-1] == '\\' {
		p-- // an escaped quote
	}
	gap := p
	for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
		p--
	}
	switch {
	case p > lo && s[p-1] == '\n':
		p--
		if p > lo && s[p-1] == '\r' {
			p--
		}
	case p-1 > lo && s[p-2] == '\\' && (s[p-1] == 'n' || s[p-1] == 'r'):
		p -= 2
		if p-1 > lo && s[p-2] == '\\' && s[p-1] == 'r' {
			p -= 2
		}
	case p == gap:
		return false // "DB_PASSWORDvalue"
	}
	for p > lo && (s[p-1] == ' ' || s[p-1] == '\t') {
		p--
	}
	if p > lo && s[p-1] == ',' && p < gap {
		// YAML's flow style: {name: API_TOKEN, value: ...}
		p--
	}
	if p > lo && (s[p-1] == '"' || s[p-1] == '\'') {
		p--
		if p > lo && s[p-1] == '\\' {
			p--
		}
	}
	if p <= lo || !isKeyNameByte(s[p-1]) {
		return false
	}
	w := p
	for w > lo && isKeyNameByte(s[w-1]) {
		w--
	}
	_, _, ok := secretKeyEnding(s[w:p])
	return ok
}

// proseKeywords name a secret in a sentence, the value quoted after them:
// fmt.Errorf("invalid password %q", pw) is the bug that puts one in an
// error.
var proseKeywords = []string{"password", "passwd", "passphrase", "secret", "token", "api key", "apikey", "credential"}

// quotedAfterKeyword reports whether the quote at s[q] opens the value of
// a secret named just before it in prose ("invalid password 'hunter2'",
// `bad token "..."`): one space between them, the keyword a whole word.
func quotedAfterKeyword(s string, q int) (int, bool, bool) {
	sp := q - 1
	if s[q] == '"' && sp > 0 && s[sp] == '\\' {
		sp-- // an escaped quote, inside a JSON string
	}
	if sp < 1 || s[sp] != ' ' {
		return 0, false, false
	}
	k := s[:sp]
	for _, w := range proseKeywords {
		if hasSuffixFold(k, w) && (len(k) == len(w) || !isWordByte(k[len(k)-len(w)-1])) {
			return len(k) - len(w), false, true
		}
	}
	return 0, false, false
}

// keyElementValue reports whether the tag closed at s[q] opens the value
// element of a key element that names a secret, as property lists and
// some XML settings pair them (<key>Password</key><string>...</string>,
// <key>api_token</key> then <value>...</value> on the next line), and
// returns where the value element's name starts. It reads no further back
// than the prefilter's reach.
func keyElementValue(s string, q int) (int, bool) {
	lo := max(q-scanBehind, 0)
	t := q
	for t > lo && isLetter(s[t-1]) {
		t--
	}
	tag := s[t:q]
	if t == lo || s[t-1] != '<' || !strings.EqualFold(tag, "value") && !strings.EqualFold(tag, "string") {
		return 0, false
	}
	p := t - 1
	for p > lo && isSpace(s[p-1]) {
		p--
	}
	if p-len("</key>") < lo || !hasSuffixFold(s[:p], "</key>") {
		return 0, false
	}
	p -= len("</key>")
	w := p
	for w > lo && isKeyNameByte(s[w-1]) {
		w--
	}
	if w == lo || s[w-1] != '>' {
		return 0, false
	}
	if _, _, ok := secretKeyEnding(s[w:p]); !ok {
		return 0, false
	}
	return t, true
}

// namedElementBefore reports whether the tag closed at s[q] names a secret
// in its last attribute, name or key (<property name="db.password">, as
// Hibernate and Spring configure): the element's text is then the secret's
// value. It returns where the secret's name ends its keyword. Like
// namedValueBefore it reads no further back than the prefilter's reach.
func namedElementBefore(s string, q int) (int, bool) {
	lo := max(q-scanBehind, 0)
	quote := s[q-1]
	open := q - 2
	for open >= lo && s[open] != quote && isKeyNameByte(s[open]) {
		open--
	}
	if open < lo || s[open] != quote {
		return 0, false
	}
	start, _, ok := secretKeyEnding(s[open+1 : q-1])
	if !ok {
		return 0, false
	}
	a := open
	if a > lo && s[a-1] == '=' {
		a--
	} else {
		return 0, false
	}
	switch {
	case a-4 >= lo && hasSuffixFold(s[:a], "name"):
		a -= 4
	case a-3 >= lo && hasSuffixFold(s[:a], "key"):
		a -= 3
	default:
		return 0, false
	}
	if a == 0 || s[a-1] != ' ' && s[a-1] != '\t' {
		return 0, false
	}
	return open + 1 + start, true
}

func isAssignOp(c byte) bool { return c == ':' || c == '?' || c == '.' || c == '+' || c == '!' }

// withoutTypeName steps back over a type between a name and its '='
// ("var token string = ...", "token: str = ..."), returning the end of
// the name, or j when there is no type.
func withoutTypeName(s string, j int) int {
	if j == 0 || s[j-1] != 'g' && s[j-1] != 'r' {
		return j
	}
	for _, typ := range []string{" string", " String", ": str", ": String", ": string"} {
		if strings.HasSuffix(s[:j], typ) {
			k := j - len(typ)
			for k > 0 && s[k-1] == ' ' {
				k--
			}
			return k
		}
	}
	return j
}

// inPath reports whether the key whose keyword starts at s[start] is a
// segment of a file path or URL path ("/etc/passwd:",
// "/run/secrets/db_password:"): a name there is not an assignment. Only the
// bytes within the prefilter's reach of the separator at s[q] are read.
func inPath(s string, start, q int) bool {
	w := start
	// s[w-1] and s[w-2] are read after the loop: both within scanBehind.
	for w > 0 && q-w < scanBehind-2 && isKeyNameByte(s[w-1]) {
		w--
	}
	return w > 0 && (s[w-1] == '/' || s[w-1] == '\\' && (w < 2 || s[w-2] != '"' && s[w-2] != '{' && s[w-2] != ','))
}

// assignsInPath reports whether the separator after a key in a path
// segment assigns a value all the same: '=' always does (matrix and
// key=value segments, "/reset/token=..."), ':' when a value follows it
// directly ("/api_key:abc..."). A file path ends at a colon followed by a
// space or the end of the text ("open /run/secrets/db_password: denied").
func assignsInPath(s string, q int) bool {
	switch s[q] {
	case '=':
		return true
	case ':':
		return q+1 < len(s) && !isSpace(s[q+1]) && s[q+1] != ':'
	}
	return false
}

func isKeyNameByte(c byte) bool { return isWordByte(c) || c == '-' || c == '.' }

// xmlTagBefore reports whether the key starting at s[start] names an XML
// element ("<password>") closed at s[q]. Like inPath, it reads no further
// back from the separator than the prefilter's reach.
func xmlTagBefore(s string, start, q int) bool {
	w := start
	// s[w-1] is read after the loop: within scanBehind.
	for w > 0 && q-w < scanBehind-1 && isKeyNameByte(s[w-1]) {
		w--
	}
	return w > 0 && s[w-1] == '<'
}

// valueAt returns the bounds of the value after the separator at s[q], or
// an empty span when there is none.
func valueAt(s string, q int, line bool) (int, int) {
	if s[q] == '"' || s[q] == '\'' {
		// A quoted value after a keyword in prose: the separator is its
		// opening quote, escaped inside a JSON string.
		p := q
		if s[q] == '"' && q > 0 && s[q-1] == '\\' {
			p--
		}
		return p, valueEnd(s, p, false)
	}
	p := valueStart(s, q)
	if s[q] == '>' && p < len(s) && s[p] != '"' && s[p] != '\'' && s[p] != '<' {
		// An element's text is its value, spaces and all
		// (<password>my secret phrase</password>), to the tag that closes
		// it or the end of the line.
		e := p
		for e < len(s) && s[e] != '<' && s[e] != '\n' && s[e] != '\r' {
			e++
		}
		spend(e - p)
		for e > p && (s[e-1] == ' ' || s[e-1] == '\t') {
			e--
		}
		return p, e
	}
	if s[q] == ',' {
		if p >= len(s) || s[p] != '"' && s[p] != '\'' {
			return p, p
		}
		// A name-value pair ({"name":"DB_PASSWORD","value":"..."}, as
		// Kubernetes and ECS list environment variables): the quoted
		// token after the comma names the member whose value is the
		// secret, and is no secret itself.
		e := valueEnd(s, p, false)
		c := e
		for c < len(s) && (s[c] == ' ' || s[c] == '\t') {
			c++
		}
		if e > p+1 && s[e-1] == s[p] && c < len(s) && s[c] == ':' {
			spend(c - e)
			p = valueStart(s, c)
		}
	}
	if !line && s[q] == ':' && p < len(s) && s[p] == '!' {
		// A YAML tag before the value (password: !!str ...) is not it. A
		// tag is a short word: the read stops at maxTagLen, so a text of
		// "key:!" pairs without a space costs no more than its length.
		t := p + 1
		for t < len(s) && t-p < maxTagLen && isTagByte(s[t]) {
			t++
		}
		tagEnd := t
		for t < len(s) && t-tagEnd < 2 && (s[t] == ' ' || s[t] == '\t') {
			t++
		}
		spend(t - p)
		// After the tag stands the value, unless it is the key of a pair
		// of its own ("token: ! Cookie: sid=..."), which its rule takes.
		if t > tagEnd && t < len(s) && !isSpace(s[t]) && !valueIsKey(s, t) {
			p = t
		}
	}
	if !line && p < len(s) && (s[p] == '{' || s[p] == '[') {
		return p, structureEnd(s, p)
	}
	return p, valueEnd(s, p, line)
}

// structureAfter reports a list or an object as the value after the
// separator at s[q], reading no more than three bytes past it.
func structureAfter(s string, q int) bool {
	p := q + 1
	for n := 0; n < 2 && p < len(s) && s[p] == ' '; n++ {
		p++
	}
	return p < len(s) && (s[p] == '[' || s[p] == '{')
}

// maxTagLen bounds a YAML tag ("!!str", "!secret", "!<tag:yaml.org,2002:str>"
// is longer and is left as it is).
const maxTagLen = 24

func isTagByte(c byte) bool {
	return isWordByte(c) || c == '!' || c == '/' || c == ':' || c == '.' || c == '-'
}

// maxStructure bounds how far structureEnd reads for the closing bracket.
const maxStructure = 256

// structureEnd returns the end of the object or array that opens at s[p]
// ({"value": "..."}, [..., ...], YAML's {value: ...}): a secret key's value
// that is a structure is redacted whole, since the secret is somewhere
// inside it. Quoted strings are skipped, escapes respected. A structure
// that does not close within maxStructure bytes ends at the first line
// break after its opening, or at the bound.
func structureEnd(s string, p int) int {
	limit := min(len(s), p+maxStructure)
	depth, e := 0, p
	defer func() { spend(e - p) }()
	for e < limit {
		switch s[e] {
		case '\\':
			e += 2
			continue
		case '"', '\'':
			quote := s[e]
			e++
			for e < limit && s[e] != quote {
				if s[e] == '\\' {
					e++
				}
				e++
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				e++
				return e
			}
		}
		e++
	}
	e = min(e, limit)
	if n := strings.IndexAny(s[p:e], "\r\n"); n >= 0 {
		return p + n
	}
	return e
}

// valueStart skips the rest of the separator ("=>", ":=", "::=") and the
// spaces after it; after an XML tag, the value may start on the next line.
func valueStart(s string, q int) int {
	p := q + 1
	for n := 0; n < 3 && p < len(s) && (s[p] == ':' || s[p] == '=' || s[p] == '>'); n++ {
		p++
	}
	if s[q] == '>' {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		spend(p - q)
		return p
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - q)
	return p
}

// valueEnd parses one value starting at s[p]: an escaped JSON string, a
// JSON string, a single-quoted string (the last two possibly unterminated),
// else a bare word, or for header keys the rest of the line. A backslash
// escapes the next byte inside either quote, so "it\'s" is one value.
func valueEnd(s string, p int, line bool) int {
	if p >= len(s) {
		return p
	}
	switch s[p] {
	case '\\':
		if p+1 < len(s) && s[p+1] == '"' {
			if e := escapedStringEnd(s, p+2); e > 0 {
				return e
			}
		}
	case '"', '\'':
		quote := s[p]
		e := p + 1
		defer func() { spend(e - p) }()
		for e < len(s) {
			c := s[e]
			if c == quote {
				return e + 1
			}
			if c == '\r' || c == '\n' {
				return e
			}
			if c == '\\' && e+1 < len(s) && s[e+1] != '\n' {
				e += 2
				continue
			}
			e++
		}
		return min(e, len(s))
	}
	if line {
		return foldedLineEnd(s, p)
	}
	e := p
	defer func() { spend(e - p) }()
	for e < len(s) {
		c := s[e]
		if c == '\\' {
			if e+1 < len(s) && !isSpace(s[e+1]) && strings.IndexByte("nrtu", s[e+1]) < 0 {
				e += 2
				continue
			}
			break
		}
		if endsBareValue[c] {
			break
		}
		e++
	}
	return e
}

// escapedStringEnd finds the closing \" of a string inside a JSON string.
func escapedStringEnd(s string, e int) int {
	for e < len(s) {
		switch s[e] {
		case '"':
			return 0
		case '\\':
			if e+1 < len(s) && s[e+1] == '"' {
				return e + 2
			}
			e += 2
			continue
		}
		e++
	}
	return 0
}

// redactKeyValues replaces the values of secret keys. A separator may be
// followed by spaces ("password: x"), so a value can be the next key
// ("password= client_secret: x"); that pair is skipped so that the later
// secret is not hidden behind the earlier key. Every separator costs work
// bounded by the distance to the next one or by the value it redacts, so
// chains of keys ("token=token=...") stay linear.
func redactKeyValues(s string) string {
	e := edit{s: s}
	// The next separator of each kind is found with IndexByte, which skips
	// prose faster than a loop over its bytes.
	seps := [...]byte{':', '=', ',', '>', '"', '\''}
	var next [len(seps)]int
	for k, c := range seps {
		next[k] = indexFrom(s, 0, c)
	}
	for {
		k := 0
		for m := 1; m < len(next); m++ {
			if next[m] < next[k] {
				k = m
			}
		}
		q := next[k]
		if q >= len(s) {
			break
		}
		next[k] = indexFrom(s, q+1, seps[k])
		ks, line, ok := keyBefore(s, q)
		if !ok || ks < e.last {
			continue
		}
		vs := valueStart(s, q)
		if vs >= len(s) {
			continue
		}
		var ve int
		nextLine := false
		if n := lineBreakAt(s, vs); n > 0 && s[q] != '>' && s[q] != ',' {
			var ok bool
			nextLine = true
			if vs, ve, ok = nextLineValue(s, vs+n, line); !ok {
				continue
			}
		} else {
			if valueIsKey(s, vs) {
				continue
			}
			if n := blockIndicator(s, vs); n > 0 && !line && s[q] == ':' {
				var ok bool
				if vs, ve, ok = blockScalarLine(s, vs+n); !ok {
					continue
				}
			} else {
				vs, ve = valueAt(s, q, line)
				if !line {
					ve = dsnValueEnd(s, ks, vs, ve)
				}
			}
		}
		if ve <= vs || !line && (s[q] == ':' || nextLine) && isValidationWord(s[vs:ve]) {
			continue
		}
		cs, ce := valueCore(s, vs, ve)
		e.replace(cs, ce, Redacted)
		e.last = ve
		for m, c := range seps {
			if next[m] < ve {
				next[m] = indexFrom(s, ve, c)
			}
		}
	}
	return e.result()
}

// lineBreakAt returns the length of the line break at s[p], real or
// escaped as JSON and the log tier write it ("\r\n", `\n`), or 0.
func lineBreakAt(s string, p int) int {
	switch {
	case p >= len(s):
		return 0
	case s[p] == '\n':
		return 1
	case s[p] == '\r':
		if p+1 < len(s) && s[p+1] == '\n' {
			return 2
		}
		return 1
	case s[p] == '\\' && p+1 < len(s) && (s[p+1] == 'n' || s[p+1] == 'r'):
		if s[p+1] == 'r' && strings.HasPrefix(s[p+2:], `\n`) {
			return 4
		}
		return 2
	}
	return 0
}

// nextLineValue finds the value of a key whose line ends at its separator
// ("password:" then the value on the next line, as YAML indents it and
// pretty-printed JSON may break it). The next line counts as the value only
// when it holds exactly one value: a quoted string or a single bare word,
// which may be followed by a comma, spaces and the end of the line or of an
// enclosing string. A line of several words is prose about the key
// ("password reset failed:" / "user not found"), not its value, and stays.
// A header folded onto a line that starts with a space or a tab (obsolete
// in HTTP/1.1 but still parsed) continues the header: its whole line goes.
// p is the start of the next line; the reads stop at its end.
func nextLineValue(s string, p int, line bool) (int, int, bool) {
	from := p
	for p < len(s) {
		if s[p] == ' ' || s[p] == '\t' {
			p++
		} else if s[p] == '\\' && p+1 < len(s) && s[p+1] == 't' {
			p += 2
		} else {
			break
		}
	}
	spend(p - from)
	if p >= len(s) || lineBreakAt(s, p) > 0 {
		return 0, 0, false
	}
	if line && p > from {
		return p, foldedLineEnd(s, p), true
	}
	if valueIsKey(s, p) {
		return 0, 0, false
	}
	e := valueEnd(s, p, false)
	if e <= p || emptyPair(s[p:e]) || holdsKey(s, p, e) {
		return 0, 0, false
	}
	r := e
	if r < len(s) && s[r] == ',' {
		r++
	}
	for r < len(s) && (s[r] == ' ' || s[r] == '\t') {
		r++
	}
	spend(r - e)
	if r < len(s) && lineBreakAt(s, r) == 0 && !closesValue[s[r]] {
		return 0, 0, false
	}
	return p, e, true
}

// holdsKey reports whether the word s[p:e] holds a secret key's separator
// ("0Authorization:x"): the word is then a pair of its own, whose value
// its key's rule takes, and not the value of the line before. Were it
// taken, redacting its value first ("0Authorization:[redacted]") would
// change what the line before is found to hold.
func holdsKey(s string, p, e int) bool {
	for i := p; i < e; i++ {
		if c := s[i]; c == ':' || c == '=' {
			if _, _, ok := keyBefore(s, i); ok {
				return true
			}
		}
	}
	return false
}

// emptyPair reports whether w is a key with an empty value ("DB_PASSWORD=",
// "url:"), as in a list of unset variables: the key of the next line, not
// the value of the last. Base64 padding also ends in '=', but base64 has no
// '_', '.' or '-' before it, and a name of secret or configuration keys
// usually has.
func emptyPair(w string) bool {
	last := w[len(w)-1]
	if len(w) < 2 || last != '=' && last != ':' {
		return false
	}
	w = w[:len(w)-1]
	named := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !isKeyNameByte(c) {
			return false
		}
		named = named || c == '_' || c == '.' || c == '-'
	}
	return named || last == ':'
}

// closesValue holds the bytes that may end a line's only value besides a
// line break: the end of an enclosing string, object, list or element.
var closesValue = byteSet("\"'}])<")

// blockIndicator returns the length of the YAML indicator of a block
// scalar at s[p] ("|", ">-", "|+"), whose value starts on the next line,
// or 0.
func blockIndicator(s string, p int) int {
	if s[p] != '|' && s[p] != '>' {
		return 0
	}
	if p+1 < len(s) && (s[p+1] == '-' || s[p+1] == '+') {
		return 2
	}
	return 1
}

// blockScalarLine returns the bounds of the first line of a YAML block
// scalar whose indicator ends at s[p]: the indented line after the break.
// A block scalar holds any text, so the whole line goes; its later lines
// are not read (a multi-line secret there is a private key, which its own
// rule finds).
func blockScalarLine(s string, p int) (int, int, bool) {
	from := p
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - from)
	n := lineBreakAt(s, p)
	if n == 0 {
		return 0, 0, false
	}
	v := p + n
	for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
		v++
	}
	if s[v-1] != ' ' && s[v-1] != '\t' || v >= len(s) || lineBreakAt(s, v) > 0 {
		return 0, 0, false
	}
	return v, lineEnd(s, v), true
}

// dsnValueEnd extends a bare value that a space cut short inside a
// key-value connection string: "host=db password=hunter 2 user=app" is
// ambiguous, but in a run of key=value pairs a word without '=' belongs to
// the value before it. The value is extended over at most two such words,
// and only when a key=value pair stands both before its key and after the
// words, so prose after a value ("token=x for user=bob") keeps its words.
// The reads stay within maxDSNGap bytes of the value.
func dsnValueEnd(s string, ks, vs, ve int) int {
	if ve >= len(s) || s[ve] != ' ' || vs >= len(s) || s[vs] == '"' || s[vs] == '\'' || s[vs] == '\\' || ks < 2 {
		return ve
	}
	if s[ks-1] == ';' {
		return semicolonValueEnd(s, ve)
	}
	if s[ks-1] != ' ' || !pairBefore(s, ks-1) {
		return ve
	}
	// p is at the space before the next word.
	for p, words := ve, 0; words <= 2; words++ {
		w := p + 1
		e, key := w, true
		// A word with a colon names a key of its own ("Cookie:",
		// "Authorization:"): taking it into the value would hide its value
		// from the rule that redacts it.
		for e < len(s) && e-ve < maxDSNGap && !isSpace(s[e]) && s[e] != '=' && s[e] != ':' && !endsValueWord[s[e]] {
			key = key && isKeyNameByte(s[e])
			e++
		}
		spend(e - w)
		switch {
		case e == w || e >= len(s) || e-ve >= maxDSNGap:
			return ve
		case s[e] == '=' && key:
			if words == 0 {
				return ve
			}
			return p
		case s[e] != ' ' || words == 2:
			return ve
		}
		p = e
	}
	return ve
}

// endsValueWord ends a word of a key-value connection string.
var endsValueWord = byteSet("\"'&;,<>)}")

const maxDSNGap = 48

// semicolonValueEnd extends a bare value cut short by a space in an
// ADO.NET or ODBC connection string ("User ID=sa;Password=My Pass;..."),
// where pairs are split by ';' and a value may hold spaces: it runs to the
// next ';' or the end of the line, when that comes within maxDSNGap bytes
// and before any '=', quote or word ending in a colon.
func semicolonValueEnd(s string, ve int) int {
	p := ve
	defer func() { spend(p - ve) }()
	for ; p < len(s) && p-ve < maxDSNGap; p++ {
		switch c := s[p]; {
		case c == ';' || c == '\r' || c == '\n' || c == '\\' && lineBreakAt(s, p) > 0:
			return p
		case c == '=' || c == '"' || c == '\'':
			return ve
		case c == ':' && (p+1 == len(s) || isSpace(s[p+1])):
			// "Cookie: ..." names a key of its own.
			return ve
		}
	}
	if p == len(s) {
		return p
	}
	return ve
}

// pairBefore reports whether the word that ends at s[end] (exclusive) is
// a key=value pair.
func pairBefore(s string, end int) bool {
	for i := end - 1; i >= 0 && end-i < maxDSNGap; i-- {
		switch c := s[i]; {
		case c == '=':
			return i > 0 && isKeyNameByte(s[i-1]) && i+1 < end
		case isSpace(c), c == '"', c == '\'':
			return false
		}
	}
	return false
}

// validationWords start the messages of validators ("password: field
// required", "token: must not be empty"): after "key:" such a word is the
// start of prose, not a secret.
var validationWords = map[string]bool{
	"required": true, "missing": true, "invalid": true, "empty": true, "must": true, "should": true,
	"cannot": true, "field": true, "is": true, "not": true, "expected": true, "too": true,
	"unknown": true, "unset": true, "none": true, "null": true, "nil": true, "redacted": true,
	// MySQL's "Access denied ... (using password: YES)" says whether one was sent.
	"yes": true, "no": true,
}

// isValidationWord reports whether v is one of validationWords in any
// case, without allocating.
func isValidationWord(v string) bool {
	var buf [8]byte
	if len(v) > len(buf) {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return validationWords[string(buf[:len(v)])]
}

// indexFrom returns the index of the first c in s at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		spend(k + 1)
		return i + k
	}
	spend(len(s) - i)
	return len(s)
}

// valueIsKey reports whether the value starting at s[vs] begins with
// another secret key that has a value of its own: only letters, '_', '.',
// '-', quotes or a backslash may precede that key's keyword, so a value
// like "hunter2 token=x" is redacted whole. It reads no further than the
// next key's separator and the first byte of its value.
func valueIsKey(s string, vs int) bool {
	p := vs
	for p < len(s) && mayLeadKey[s[p]] {
		p++
	}
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	spend(p - vs)
	if p >= len(s) || s[p] != ':' && s[p] != '=' {
		return false
	}
	ks, _, ok := keyBefore(s, p)
	if !ok || ks < vs {
		return false
	}
	nv := valueStart(s, p)
	return nv < len(s) && !endsBareValue[s[nv]] || nv < len(s) && (s[nv] == '"' || s[nv] == '\'')
}

// valueCore returns the part of the value s[vs:ve] that is replaced: its
// quotes stay so that the surrounding JSON or query stays readable.
func valueCore(s string, vs, ve int) (int, int) {
	v := s[vs:ve]
	switch {
	case strings.HasPrefix(v, `\"`):
		if len(v) >= 4 && strings.HasSuffix(v, `\"`) {
			return vs + 2, ve - 2
		}
		return vs + 2, ve
	case v[0] == '"' || v[0] == '\'':
		if len(v) >= 2 && v[len(v)-1] == v[0] {
			return vs + 1, ve - 1
		}
		return vs + 1, ve
	}
	return vs, ve
}

var (
	endsBareValue = byteSet(" \t\n\r\f\v&,;\"'<>)}")
	mayLeadKey    = byteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.-\"'\\")
)

func byteSet(chars string) (t [256]bool) {
	for i := 0; i < len(chars); i++ {
		t[chars[i]] = true
	}
	return t
}

func hasSuffixFold(s, lower string) bool {
	return len(s) >= len(lower) && hasPrefixFold(s[len(s)-len(lower):], lower)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
