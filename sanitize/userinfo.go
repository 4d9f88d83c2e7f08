package sanitize

import "strings"

// The userinfo of a URL ("postgres://app:pw@db/x"), of a MySQL DSN
// ("app:pw@tcp(db)/x") and of an address written without a scheme
// ("user:pw@registry.example.com") holds a password in plain text: drivers
// and clients quote them back in their errors.

// redactUserinfo replaces the userinfo of every URL. The authority runs to
// the first '/', '?', '#' or space, and the userinfo to its last '@', so a
// malformed DSN with '@' inside the password is still covered. A password
// may also hold a raw '/', '?' or '#' ("postgres://app:pa/ss@db/x"): when
// the authority stops there and holds a "user:", the userinfo runs to the
// last '@' of the word. That can take a path that holds an '@' with it
// ("https://u:p@host/@alice"), which loses the host but never a password.
//
// It also reports whether its result is settled, which it is when s holds
// one URL whose userinfo ended at the last '@' of its authority: the
// result's userinfo is then the marker alone, which holds no ':' to read
// on from, no '@' and no '/', so a second run finds the same authority and
// replaces the marker with itself (TestUserinfoSettled).
func redactUserinfo(s string) (string, bool) {
	e := edit{s: s}
	// The end of the current word and its last '@', found once per word:
	// a word of repeated "://" costs one pass.
	wordEnd, wordAt := -1, -1
	urls, inAuthority := 0, false
	for i := 0; ; {
		k := indexSchemeSep(s, i)
		if k < 0 {
			spend(len(s) - i)
			break
		}
		urls++
		spend(k - i + 3)
		start := k + 3
		i = start
		if start-3 < e.last {
			continue
		}
		at, end := -1, start
		for ; end < len(s) && !endsAuthority[s[end]]; end++ {
			if s[end] == '@' {
				at = end
			}
		}
		spend(end - start)
		// The colon of "user:" is before the first '@' if there is one.
		userEnd := end
		if at >= 0 {
			userEnd = strings.IndexByte(s[start:end], '@') + start
		}
		if end < len(s) && !endsWord[s[end]] && strings.IndexByte(s[start:userEnd], ':') >= 0 {
			if start >= wordEnd {
				wordEnd, wordAt = start, -1
				for ; wordEnd < len(s) && !endsWord[s[wordEnd]]; wordEnd++ {
					if s[wordEnd] == '@' {
						wordAt = wordEnd
					}
				}
				spend(wordEnd - start)
			}
			at = max(at, wordAt)
		}
		if end < len(s) && (s[end] == ' ' || s[end] == '\t') {
			at = max(at, spacedUserinfoEnd(s, start, end, at))
		}
		if at < 0 {
			if ps, pe := cutPassword(s, start, end); pe > ps {
				e.replace(ps, pe, Redacted)
				i = pe
			}
			continue
		}
		if at <= start {
			continue
		}
		inAuthority = at < end
		e.replace(start, at, Redacted)
		i = at
	}
	return e.result(), urls == 1 && inAuthority
}

// cutUserColon returns the index of the colon of "user:" in an authority
// that starts at s[p], when it comes within the prefilter's reach and
// before any '@', '/', '.', '[' or blank, or 0.
func cutUserColon(s string, p int) int {
	for k := p; k < len(s) && k-p < scanAhead-3; k++ {
		switch c := s[k]; {
		case c == ':':
			if k == p {
				return 0
			}
			return k
		case c == '@' || c == '.' || c == '[' || endsAuthority[c] || endsWord[c]:
			return 0
		}
	}
	return 0
}

// cutPassword finds the password of a URL whose host part the text cut
// away: "scheme://user:pass" at the end of the text or before a quote
// (a message that quotes a DSN up to its first bytes: "\"postgres://svc:
// Hunter2Pa..."). A password of digits alone is a port ("localhost:8080").
func cutPassword(s string, start, end int) (int, int) {
	colon := cutUserColon(s, start)
	if colon == 0 {
		return 0, 0
	}
	cut := end
	if k := strings.IndexAny(s[colon:end], "\"'\\"); k >= 0 {
		cut = colon + k
	} else if end < len(s) {
		return 0, 0
	}
	if pw := s[colon+1 : cut]; pw == "" || strings.Trim(pw, "0123456789") == "" {
		return 0, 0
	}
	return colon + 1, cut
}

// spacedUserinfoEnd finds the '@' that ends a userinfo whose password holds
// a raw space or tab ("postgres://app:hunter 2@db/x", "redis://:p@ss
// w0rd@10.0.0.1"): such a URL is malformed, and drivers quote it back in
// their errors. The authority at s[start:end] stops at that space. It is
// read on only when it has a password that is not a port ("host:5432") and,
// if it holds an '@' already, the host after it has neither a dot nor a
// port, so "https://u:p@db.example.com is down, mail ops@example.com"
// keeps its host. The '@' must follow within three more words and
// maxUserinfoGap bytes, before any line break, quote or '/'. It returns
// that '@', or -1.
func spacedUserinfoEnd(s string, start, end, at int) int {
	userEnd := end
	if at >= 0 {
		userEnd = start + strings.IndexByte(s[start:end], '@')
	}
	u := s[start:userEnd]
	colon := strings.IndexByte(u, ':')
	if colon < 0 || u[0] == '[' {
		return -1
	}
	if at < 0 {
		if pw := u[colon+1:]; strings.Trim(pw, "0123456789") == "" {
			return -1
		}
	} else if host := s[at+1 : end]; host == "" || strings.ContainsAny(host, ".:[") {
		return -1
	}
	found, gaps, p := -1, 0, end
	defer func() { spend(p - end) }()
	for ; p < len(s) && p-end < maxUserinfoGap; p++ {
		switch c := s[p]; {
		case c == ' ' || c == '\t':
			if found >= 0 {
				return found
			}
			if gaps++; gaps > 3 {
				return -1
			}
		case c == '@':
			if p+1 < len(s) && (isAlnum(s[p+1]) || s[p+1] == '[') {
				found = p
			}
		case endsAuthority[c] || endsWord[c]:
			return found
		}
	}
	return found
}

const maxUserinfoGap = 64

// indexSchemeSep returns the index of the first "://" at or after s[i], or
// -1. It looks for the slashes: error chains hold far more colons ("op:
// err: cause") than slashes.
func indexSchemeSep(s string, i int) int {
	for j := i + 1; j < len(s); {
		k := strings.IndexByte(s[j:], '/')
		if k < 0 {
			return -1
		}
		k += j
		if s[k-1] == ':' && k+1 < len(s) && s[k+1] == '/' {
			return k - 1
		}
		j = k + 1
	}
	return -1
}

var endsWord = byteSet(" \t\n\r\f\v\"'<>`")

var endsAuthority = byteSet(" \t\n\r\f\v/?#")

// redactDSNUserinfo replaces the user and password of a MySQL DSN
// ("user:pw@tcp(host)/db"), and the password of a userinfo written
// without a scheme.
func redactDSNUserinfo(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '@' {
			continue
		}
		if dsnProtocol(s[i+1:]) == 0 {
			if ps, pe := bareUserinfoPassword(s, i); pe > ps && ps >= e.last {
				e.replace(ps, pe, Redacted)
			}
			continue
		}
		// The user starts after a blank, and after the log tier's escape
		// of one ("-u admin:\\n" before "root:...@tcp("), as it did in the
		// text the escape was written for.
		start := i
		for start > e.last && !isSpace(s[start-1]) && !dsnUserStops[s[start-1]] && !escapedBlankBefore(s, start) {
			start--
		}
		spend(i - start)
		if start == i {
			continue
		}
		e.replace(start, i, Redacted)
	}
	return e.result()
}

// bareUserinfoPassword finds the password of "user:password@host" written
// without a scheme (a registry, a git remote, a proxy setting): the word
// before the '@' at s[at] holds one ':', what follows it is shaped like a
// credential and a host follows the '@'. It returns the password's bounds,
// reading no further back than the prefilter's reach.
func bareUserinfoPassword(s string, at int) (int, int) {
	if at+1 >= len(s) || !isAlnum(s[at+1]) {
		return 0, 0
	}
	lo := max(0, at-(scanBehind-1))
	colon, w := -1, at
	for ; w > lo && !endsBareUser[s[w-1]]; w-- {
		if s[w-1] == ':' {
			if colon >= 0 {
				return 0, 0
			}
			colon = w - 1
		}
	}
	if colon <= w || w > 0 && !endsWord[s[w-1]] {
		return 0, 0
	}
	if !contextRules[0].shape.holds(s[colon+1 : at]) {
		return 0, 0
	}
	return colon + 1, at
}

// endsBareUser holds the bytes before which a bare userinfo starts: the
// end of a word, or '/', '@', '(' or '=' (the userinfo of a URL, an
// address, a MySQL DSN or a key's value is no bare one). One lookup per
// byte read back: the scan asks at every '@'.
var endsBareUser = func() (t [256]bool) {
	t = endsWord
	for _, c := range []byte("/@(=") {
		t[c] = true
	}
	return t
}()

// dsnProtocol reports the length of a MySQL DSN protocol and its opening
// parenthesis at the start of s ("tcp(" in "user:pw@tcp(db:3306)/app").
func dsnProtocol(s string) int {
	if s == "" || s[0] != 't' && s[0] != 'u' {
		return 0
	}
	for _, p := range []string{"tcp(", "tcp6(", "udp(", "unix("} {
		if strings.HasPrefix(s, p) {
			return len(p)
		}
	}
	return 0
}

// dsnUserStops are the bytes before which a MySQL DSN's user starts,
// besides a space.
var dsnUserStops = byteSet("\"'(")
