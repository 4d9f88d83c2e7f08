package problem

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/faultline-go/faultline/internal/textclass"
	"github.com/faultline-go/faultline/sanitize"
)

// This file holds the rules every representation applies to member names
// and to instance, so JSON, XML and text always carry the same members.

// extensionMembers returns the extension members as rendered: names that
// cannot be written as they are (a peer's, kept by Parse) pass the public
// tier and never repeat a name at the top level, and the value of a member
// named like a secret is redacted. The common case, names set with
// WithExtension and no secret among them, returns p.ext itself.
func (p *Problem) extensionMembers(legacy bool) []extension {
	plain := true
	for _, e := range p.ext {
		if !validExtensionName(e.Name) || reservedName(e.Name) || secretName(e.Name) {
			plain = false
			break
		}
	}
	if plain {
		return p.ext
	}
	seen := make(map[string]bool, len(reserved)+len(p.ext))
	for name := range reserved {
		seen[name] = true
	}
	if !legacy {
		// Without the legacy members their names are free.
		delete(seen, "error")
		delete(seen, "message")
	}
	out := make([]extension, 0, len(p.ext))
	for _, e := range p.ext {
		out = append(out, publicMember(seen, e.Name, e.Value, true))
	}
	return out
}

// publicMembers returns the members of a map value in the order they are
// rendered: sorted by key, names through the public tier and unique,
// secrets redacted.
func publicMembers(m map[string]any) []extension {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	seen := make(map[string]bool, len(m))
	out := make([]extension, 0, len(m))
	for _, k := range keys {
		out = append(out, publicMember(seen, k, m[k], false))
	}
	return out
}

// publicMember is one member as rendered, its name unique among seen; with
// fold (the problem's own members), unique up to case too, so that no
// extension is a standard member to a decoder that folds case.
func publicMember(seen map[string]bool, name string, value any, fold bool) extension {
	if secretName(name) {
		value = sanitize.Redacted
	}
	name = renderedName(sanitize.Public(name))
	key := func(n string) string {
		if fold {
			return strings.ToLower(n)
		}
		return n
	}
	if seen[key(name)] {
		// Two names the public tier made equal (two IP addresses become
		// the same placeholder) must stay two members.
		for n := 2; ; n++ {
			if c := name + " (" + strconv.Itoa(n) + ")"; !seen[key(c)] {
				name = c
				break
			}
		}
	}
	seen[key(name)] = true
	return extension{Name: name, Value: value}
}

// renderedName is name with what every representation writes as U+FFFD
// (a byte that is not UTF-8, an invisible rune) already replaced, so that
// two names the renderer would make equal ("x\xe2", "x\u202e") are told
// apart as equal here, before the JSON object gets the same member twice.
func renderedName(name string) string {
	if strings.IndexFunc(name, isReplaced) < 0 {
		return name
	}
	// strings.Map writes U+FFFD for every byte that is not UTF-8.
	return strings.Map(func(r rune) rune {
		if isReplaced(r) {
			return utf8.RuneError
		}
		return r
	}, name)
}

// isReplaced reports the runes every representation writes as U+FFFD, so
// JSON and XML carry the same text: what XML 1.0 cannot carry or
// discourages (C0 controls but tab, line feed and carriage return; DEL and
// the C1 controls; U+FFFE, U+FFFF), which also keeps a terminal that shows
// a problem from reading ESC or U+009B as a control sequence, and the
// invisible characters of textclass.IsInvisible. A byte that is not UTF-8
// decodes as utf8.RuneError.
func isReplaced(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\r'
	case 0x7f <= r && r <= 0x9f, r == 0xfffe, r == 0xffff, r == utf8.RuneError:
		return true
	}
	return textclass.IsInvisible(r)
}

// secretName reports whether a member's name marks its value as a secret.
// The rule is the public tier's own, asked with a stand-in value: a name
// whose value the tier redacts in "name=value" text is redacted here too,
// so the kit has one list of secret names, in sanitize.
func secretName(name string) bool {
	if name == "" || strings.ContainsAny(name, "=:\n") {
		return false
	}
	return strings.HasSuffix(sanitize.Public(name+"=placeholder"), "="+sanitize.Redacted)
}

// publicInstance returns instance as rendered: through the public tier
// (a token in a path is not echoed) and then as a URI reference, every
// byte outside RFC 3986's allowed set percent-encoded. An escaped request
// path passes unchanged, without allocating.
func publicInstance(s string) string {
	out, _ := publicInstanceOf(s)
	return out
}

// publicInstanceOf is publicInstance, and whether every byte of the result
// is one a JSON string carries as it is (plainJSON; a URI reference's only
// other byte is '&'), which the memo remembers with it.
func publicInstanceOf(s string) (string, bool) {
	if len(s) > maxMemoInstance {
		return makePublicInstance(s), false
	}
	// memoHash, not a keyed hash: paths made to share a slot cost their
	// own rendering, as every path did before the memo.
	slot := &instanceMemo[memoHash(s)%uint64(len(instanceMemo))]
	if slot.TryLock() {
		if slot.in == s && slot.valid {
			out, plain := slot.out, slot.plain
			slot.Unlock()
			return out, plain
		}
		slot.Unlock()
	}
	// The tier runs with no slot held, so nothing it does can leave one
	// locked; another request holding the slot means computing beats
	// waiting.
	out := makePublicInstance(s)
	plain := plainText(out)
	if slot.TryLock() {
		slot.in, slot.out, slot.plain, slot.valid = s, out, plain, true
		slot.Unlock()
	}
	return out, plain
}

// plainText reports whether appendString writes s as it is.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainJSON[s[i]] {
			return false
		}
	}
	return true
}

// The public tier is the costliest step of rendering a problem, and error
// responses repeat a few paths (a popular route's 404s, a rate-limited
// endpoint), so the public form of recent instances is remembered: a fixed
// number of slots, each guarded by its own lock, no allocation, and only
// paths short enough that keeping one costs nothing.
const maxMemoInstance = 256

type memoSlot struct {
	sync.Mutex
	valid, plain bool
	in, out      string
}

var instanceMemo [64]memoSlot

func makePublicInstance(s string) string { return asReference(publicURI(s)) }

// asReference makes an escaped reference parse as RFC 3986 reads it
// (§4.1, §4.2): a colon before the first '/', '?' or '#' that does not end
// a scheme would make the first segment a scheme, so every colon of that
// segment is percent-encoded (§4.2's remedy), as is every '#' after the
// one that starts the fragment, which a fragment cannot hold.
func asReference(s string) string {
	end := strings.IndexAny(s, "/?#")
	if end < 0 {
		end = len(s)
	}
	if colon := strings.IndexByte(s[:end], ':'); colon >= 0 && !isScheme(s[:colon]) {
		s = strings.ReplaceAll(s[:end], ":", "%3A") + s[end:]
	}
	if hash := strings.IndexByte(s, '#'); hash >= 0 && strings.IndexByte(s[hash+1:], '#') >= 0 {
		s = s[:hash+1] + strings.ReplaceAll(s[hash+1:], "#", "%23")
	}
	return s
}

// isScheme reports whether s is an RFC 3986 scheme: a letter, then
// letters, digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || (c < '0' || c > '9') && c != '+' && c != '-' && c != '.') {
			return false
		}
	}
	return s != ""
}

// publicURI is the public tier and the escaping of makePublicInstance,
// for a whole reference or one of its segments.
func publicURI(s string) string {
	public := sanitize.Public(s)
	if public == sanitize.GenericDetail && s != public {
		return publicSegments(s)
	}
	if decoded, ok := percentDecoded(s); ok {
		// A token hidden behind escapes (ghp%5F..., %67hp_...) is the same
		// token to anyone who reads the path: when the decoded path shows a
		// secret the escaped one hid, the decoded path is sanitized and
		// escaped again, every '%' included.
		if d := sanitize.Public(decoded); strings.Count(d, sanitize.Redacted) > strings.Count(public, sanitize.Redacted) {
			return escapeURI(d, false)
		}
	}
	return escapeURI(public, true)
}

// publicSegments sanitizes a path segment by segment when the public tier
// would replace it whole (a segment reads like SQL or a stack trace): the
// generic sentence in its place would be a relative reference to another
// resource, so only the segments that read so are redacted.
func publicSegments(s string) string {
	segments := strings.Split(s, "/")
	if len(segments) == 1 {
		return escapeURI(sanitize.Redacted, false)
	}
	for i, seg := range segments {
		if seg != "" {
			segments[i] = publicURI(seg)
		}
	}
	return strings.Join(segments, "/")
}

// publicPointer passes a field error's JSON Pointer through the public
// tier token by token when the tier would change it as a whole: to the
// tier a pointer reads like a file path ("/home/street", "/root/id",
// "/opt/zip" address members a client sent), and "[redacted]" in its
// place addresses nothing. Every token still passes the tier, so a secret
// or an address sent as a member name stays hidden, and a pointer longer
// than the tier takes is left to the tier whole.
func publicPointer(ptr string) string {
	public := sanitize.Public(ptr)
	if public == ptr || len(ptr) > sanitize.MaxPublicLen || !strings.HasPrefix(ptr, "/") {
		return public
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, tok := range tokens {
		tokens[i] = sanitize.Public(tok)
	}
	return "/" + strings.Join(tokens, "/")
}

// escapeURI percent-encodes every byte of s outside RFC 3986's allowed set;
// keepEscapes leaves valid percent-encodings as they are.
func escapeURI(s string, keepEscapes bool) string {
	allowed := func(i int) bool {
		if s[i] == '%' && !keepEscapes {
			return false
		}
		return uriAllowed(s, i)
	}
	i := 0
	for i < len(s) && allowed(i) {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if allowed(i) {
			b.WriteByte(s[i])
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[s[i]>>4])
		b.WriteByte(upperHex[s[i]&0xF])
	}
	return b.String()
}

// percentDecoded decodes every valid percent-encoding of s, and reports
// false when s has none.
func percentDecoded(s string) (string, bool) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	decoded := false
	for ; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			decoded = true
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), decoded
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

const upperHex = "0123456789ABCDEF"

// uriAllowed reports whether s[i] may stand as it is in a URI reference:
// unreserved, sub-delims, ':', '@', '/', '?', '#', or the '%' of a valid
// percent-encoding.
func uriAllowed(s string, i int) bool {
	if c := s[i]; c != '%' {
		return uriPlain[c]
	}
	return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
}

var uriPlain = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range []byte("-._~!$&'()*+,;=:@/?#") {
		t[c] = true
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
