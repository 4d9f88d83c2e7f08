package sanitize

import "strings"

// Keys in XML and property lists: <password>...</password>, <property
// name="db.password">...</property>, <key>Password</key><string>...</string>.

// keyElementValue reports whether the tag closed at s[q] opens the value
// element of a key element that names a secret, as property lists and
// some XML settings pair them (<key>Password</key><string>...</string>,
// <key>api_token</key> then <value>...</value> on the next line, Hadoop's
// <name>fs.s3a.secret.key</name><value>...</value>), and
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
	switch {
	case p-len("</key>") >= lo && hasSuffixFold(s[:p], "</key>"):
		p -= len("</key>")
	case p-len("</name>") >= lo && hasSuffixFold(s[:p], "</name>"):
		// Hadoop's and Maven's <property><name>...</name><value>.
		p -= len("</name>")
	default:
		return 0, false
	}
	w := p
	for w > lo && isKeyNameByte(s[w-1]) {
		w--
	}
	// A name longer than the reach ("javax.jdo.option.ConnectionPassword")
	// is judged by its end, which names the secret.
	if w == p || w > lo && s[w-1] != '>' {
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

// xmlTagBefore reports whether the key starting at s[start] names an XML
// element ("<password>") closed at s[q]. Like inPath, it reads no further
// back from the separator than the prefilter's reach.
func xmlTagBefore(s string, start, q int) bool {
	w := start
	// s[w-1] is read after the loop: within scanBehind.
	for w > 0 && q-w < scanBehind-1 && isKeyNameByte(s[w-1]) {
		w--
	}
	// A namespaced element (<wsse:Password>, SOAP's and WS-Security's)
	// names its key after the prefix. Its value follows the tag at once:
	// "<user:password> https://..." is a usage line's placeholder.
	if w > 1 && s[w-1] == ':' && isKeyNameByte(s[w-2]) && q+1 < len(s) && !isSpace(s[q+1]) {
		w--
		for w > 0 && q-w < scanBehind-1 && isKeyNameByte(s[w-1]) {
			w--
		}
	}
	return w > 0 && s[w-1] == '<'
}

// cdataOpen starts a CDATA section, which XML writers use for a value
// that may hold markup (<Password><![CDATA[...]]></Password>): the
// section's text is the element's value.
const cdataOpen = "<![CDATA["

// cdataEnd returns the end of the text of a CDATA section that starts at
// s[p]: its "]]>" (the text may span lines), or, for a section cut
// short, the next "<!" (a section or a comment of its own, so that a text of opened
// sections is read once), at most maxCDATA bytes on.
func cdataEnd(s string, p int) int {
	e := p
	for ; e < len(s) && e-p < maxCDATA; e++ {
		if s[e] == ']' && strings.HasPrefix(s[e:], "]]>") || s[e] == '<' && e+1 < len(s) && s[e+1] == '!' {
			break
		}
	}
	spend(e - p)
	return e
}

// maxCDATA bounds the text of a CDATA section read as a value, as the
// context rule bounds a credential's.
const maxCDATA = 1024
